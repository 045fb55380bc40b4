-- A wait for a fair lock ended without the lock (timed out, interrupted, cancelled, failed): leave the queue, and
-- pass on a lock that a release handed to the caller after its last try.
--
-- KEYS[1]  lock hash
-- KEYS[2]  fencing counter
-- KEYS[3]  queue (lib/fair-queue.lua)
-- KEYS[4]  waiters
-- ARGV[1]  owner id
-- ARGV[2]  token of the hold the owner had before it started to wait ("0" if none): a re-entry that was cancelled
--          must leave that hold alone
-- ARGV[3]  channel of this lock
-- ARGV[4]  "1" to publish on the sharded channel (SPUBLISH), otherwise PUBLISH
-- ARGV[5]  fencing counter retention in milliseconds
--
-- Reply: 1 if the lock had been handed to the caller and was passed on, 0 otherwise
--
-- Sent after every try of the wait, so it runs after them: an owner that is the holder with a token other than the
-- one it already had got the lock from a handoff (or from a try whose grant came back too late), which nobody will
-- use.
fair_leave(KEYS[3], KEYS[4], ARGV[1])
local held = redis.call('HMGET', KEYS[1], 'owner', 'token')
if held[1] == ARGV[1] and held[2] ~= ARGV[2] then
  fair_hand_on(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[5], ARGV[3], ARGV[4], fair_now())
  return 1
end
return 0
