-- Hand a lock from its owner straight to another owner of the same Baton that is waiting for it, in one step:
-- the lock is never free in between, and the new owner gets a fresh fencing token.
--
-- KEYS[1]  lock hash
-- KEYS[2]  fencing counter
-- ARGV[1]  current owner id
-- ARGV[2]  current owner's token
-- ARGV[3]  new owner id
-- ARGV[4]  new owner's lease in milliseconds
-- ARGV[5]  new owner's holder description
-- ARGV[6]  fencing counter retention in milliseconds
-- ARGV[7]  release channel (pub/sub) of this lock
-- ARGV[8]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: new token  handed over (the current owner's hold count was 1)
--        0          released instead: another waiter (of any Baton) has a live claim on the lock, which a local
--                   handoff must not bypass; the lock was passed to that claimant as lock-release.lua does
--        -1         the current owner no longer holds it, or holds it more than once: nothing changed
--
-- The 'waiters' mark stays, so remote waiters are still notified when the lock is finally released. A claim of the
-- new owner itself (or one that ran out) is cleared with the handoff, as the acquire script clears it on a grant.
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'count', 'waiters')
if not owns(held[1], held[2], ARGV[1], ARGV[2]) or held[3] ~= '1' then
  return -1
end
if held[4] == '2' then
  local claim = redis.call('HMGET', KEYS[1], 'next', 'next_since', 'next_until')
  if claim[1] ~= ARGV[3] and pass_to_claimant(KEYS[1], claim) then -- lib/claim.lua
    notify(ARGV[7], ARGV[8], 'next ' .. claim[1])
    return 0
  end
  -- The new owner's claim, or one that ran out: cleared with a fresh hash (no HDEL; see lib/claim.lua).
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'count', 1, 'waiters', 1)
end
local token, number = mint_token(KEYS[2], ARGV[6]) -- lib/mint-token.lua, prepended when the script is loaded
redis.call('HSET', KEYS[1], 'owner', ARGV[3], 'token', token, 'holder', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return number
