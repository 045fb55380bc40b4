-- Administrative unlock: delete the lock whoever holds it and notify waiters. The fencing counter is kept, so
-- tokens keep increasing.
--
-- KEYS[1]  lock hash
-- ARGV[1]  release channel of this lock
-- ARGV[2]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: 1 if a lock was deleted, 0 if there was none
if redis.call('DEL', KEYS[1]) == 1 then
  notify(ARGV[1], ARGV[2])
  return 1
end
return 0
