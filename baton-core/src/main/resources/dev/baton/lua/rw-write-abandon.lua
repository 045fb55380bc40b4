-- A writer that waited gave up (timed out, interrupted, cancelled): withdraw its intent, so that it no longer holds
-- readers up (keys and fields: lib/rw-state.lua).
--
-- KEYS[1]  hash of holds
-- KEYS[2]  writers (waiting)
-- ARGV[1]  owner id of the writer that gave up
-- ARGV[2]  release channel (pub/sub) of this lock
-- ARGV[3]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: 1 if an intent was withdrawn, 0 if there was none (it had lapsed, or the writer never recorded one)
--
-- When that was the last intent and no writer holds the lock, readers refused because of it may go now: 'all'. (No
-- 'waiters' mark tells whether any were refused, as they may have been while nobody held the lock; a writer that
-- gives up is rare enough to publish regardless.)
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then
  return 0
end
local now = rw_now()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', rw_int(now))
if redis.call('EXISTS', KEYS[2]) == 0 then
  local until_w = tonumber(redis.call('HGET', KEYS[1], 'we')) or 0
  if until_w <= now then
    notify(ARGV[2], ARGV[3], 'all')
  end
end
return 1
