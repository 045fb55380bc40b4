-- Count a latch down by one (docs/count-down-latch.md).
--
-- KEYS[1]  the latch: a hash whose field 'count' holds the count, with a PX expiry
-- ARGV[1]  the latch's channel
-- ARGV[2]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: the count left; 0 if this call released the latch; -1 if the latch has no count (never set, released or
-- expired), in which case nothing changed
--
-- The count never goes below zero: the decrement that reaches zero deletes the latch instead of writing 0, so a
-- released latch and one never set are the same absent key, and every later count-down finds nothing to do. The
-- release is announced with 'all', which wakes every local waiter of every Baton (each then reads the count and
-- finds the key gone). HINCRBY keeps the key's expiry, so counting down never extends the latch's life.
local count = tonumber(redis.call('HMGET', KEYS[1], 'count')[1])
if not count then
  return -1
end
if count <= 1 then
  redis.call('DEL', KEYS[1])
  notify(ARGV[1], ARGV[2], 'all')
  return 0
end
return redis.call('HINCRBY', KEYS[1], 'count', -1)
