-- Administrative unlock: delete the lock whoever holds it and notify waiters. The fencing counter is kept, so
-- tokens keep increasing.
--
-- KEYS[1]  lock hash
-- ARGV[1]  release channel of this lock
-- ARGV[2]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: 1 if a held lock was deleted, 0 if nobody held it. A free lock's hash that only holds a waiter's claim (see
-- lock-acquire.lua) is deleted as well, with its claim, but counts as no lock.
local owner = redis.call('HMGET', KEYS[1], 'owner')[1]
if redis.call('DEL', KEYS[1]) == 1 then
  notify(ARGV[1], ARGV[2])
end
if owner then
  return 1
end
return 0
