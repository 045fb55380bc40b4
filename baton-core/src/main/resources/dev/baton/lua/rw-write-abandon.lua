-- A write acquisition ended without the lock (timed out, interrupted, cancelled, failed): withdraw the writer's
-- intent, so that it no longer holds readers up (keys and fields: lib/rw-state.lua), and report a write hold of this
-- owner that nobody will use: a try whose reply never came may have granted it (docs/lock-protocol.md,
-- "Acquisitions whose reply was lost"). Sent after every try of the attempt, on the same connection.
--
-- KEYS[1]  hash of holds
-- KEYS[2]  writers (waiting)
-- ARGV[1]  owner id of the writer that gave up
-- ARGV[2]  release channel (pub/sub) of this lock
-- ARGV[3]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
-- ARGV[4]  token of the write hold the owner had before the attempt ("0" if none)
--
-- Reply: {withdrawn, orphan}: withdrawn 1 if an intent was withdrawn, 0 if there was none (it had lapsed, or the
--        writer never recorded one); orphan the fencing token of a write hold of this owner other than ARGV[4] (a
--        grant nobody will use, which the caller then releases with rw-write-release.lua, owner and token named), or 0
--
-- When that was the last intent and no writer holds the lock, readers refused because of it may go now: 'all'. (No
-- 'waiters' mark tells whether any were refused, as they may have been while nobody held the lock; a writer that
-- gives up is rare enough to publish regardless.)
local held = redis.call('HMGET', KEYS[1], 'w', 'wt')
local orphan = 0
if held[1] == ARGV[1] and held[2] ~= ARGV[4] then
  orphan = tonumber(held[2])
end
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then
  return {0, orphan}
end
local now = rw_now()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', rw_int(now))
if redis.call('EXISTS', KEYS[2]) == 0 then
  local until_w = tonumber(redis.call('HGET', KEYS[1], 'we')) or 0
  if until_w <= now then
    notify(ARGV[2], ARGV[3], 'all')
  end
end
return {1, orphan}
