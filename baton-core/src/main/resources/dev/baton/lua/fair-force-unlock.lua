-- Administrative unlock of a fair lock: take it from whoever holds it and hand it to the first live waiter (or
-- delete it if nobody alive waits). The queue keeps its order; the fencing counter is kept, so tokens keep increasing.
--
-- KEYS[1]  lock hash
-- KEYS[2]  fencing counter
-- KEYS[3]  queue (lib/fair-queue.lua)
-- KEYS[4]  waiters
-- ARGV[1]  channel of this lock
-- ARGV[2]  "1" to publish on the sharded channel (SPUBLISH), otherwise PUBLISH
-- ARGV[3]  fencing counter retention in milliseconds
--
-- Reply: 1 if somebody held the lock, 0 if nobody did
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
fair_hand_on(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[3], ARGV[1], ARGV[2], fair_now())
return 1
