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
--
-- Reply: new token  handed over (the current owner's hold count was 1)
--        -1         the current owner no longer holds it, or holds it more than once: nothing changed
--
-- The 'waiters' mark stays, so remote waiters are still notified when the lock is finally released.
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'count')
if not owns(held[1], held[2], ARGV[1], ARGV[2]) or held[3] ~= '1' then
  return -1
end
local token, number = mint_token(KEYS[2], ARGV[6]) -- lib/mint-token.lua, prepended when the script is loaded
redis.call('HSET', KEYS[1], 'owner', ARGV[3], 'token', token, 'holder', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return number
