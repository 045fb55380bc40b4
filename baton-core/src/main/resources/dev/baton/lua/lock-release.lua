-- Release one hold of a lock; at hold count zero delete it and, if anyone waits, notify.
--
-- KEYS[1]  lock hash
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the hold being released
-- ARGV[3]  release channel (pub/sub) of this lock
-- ARGV[4]  "1" to publish even if no waiter marked the hash (the releasing Baton has local waiters)
-- ARGV[5]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
-- ARGV[6]  (optional) the message that announces the release; absent: 'released'. A Redlock names the token,
--          "released <token>", so that the copies its masters publish can be told to be one release
--
-- Reply: n > 0  still held by the owner with n holds left
--        0      released (and published on the channel if anyone waits), or passed to a waiter's live claim
--        -1     this hold is gone (expired, force-unlocked, taken over): nothing changed
--
-- Matching the token as well as the owner makes a release precise: a late or reordered release (say, one retried
-- after NOSCRIPT) can never remove a newer acquisition by the same thread.
--
-- If a waiter past its fairness threshold claimed the lock ('waiters' 2 and the 'next' fields, see lock-acquire.lua),
-- the last release frees the lock for that waiter alone and wakes it by name (pass_to_claimant, lib/claim.lua). Otherwise it reads no field more than before claims existed.
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'count', 'waiters')
if not owns(held[1], held[2], ARGV[1], ARGV[2]) then
  return -1
end
if held[3] ~= '1' then
  return redis.call('HINCRBY', KEYS[1], 'count', -1)
end
if held[4] == '2' then
  local claim = redis.call('HMGET', KEYS[1], 'next', 'next_since', 'next_until')
  if pass_to_claimant(KEYS[1], claim) then
    notify(ARGV[3], ARGV[5], 'next ' .. claim[1])
    return 0
  end
end
redis.call('DEL', KEYS[1])
if held[4] or ARGV[4] == '1' then
  notify(ARGV[3], ARGV[5], ARGV[6])
end
return 0
