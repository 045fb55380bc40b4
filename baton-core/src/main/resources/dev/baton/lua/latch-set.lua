-- Set a count-down latch's count, unless it has one (docs/count-down-latch.md).
--
-- KEYS[1]  the latch: a hash whose field 'count' holds the count, with a PX expiry
-- ARGV[1]  the count, at least 1 (checked by the caller)
-- ARGV[2]  the expiry in milliseconds, at least 1 (checked by the caller)
--
-- Reply: 1 if set, 0 if the latch already had a count (nothing changed)
--
-- The count and its expiry are written by one script, so no latch ever lives without an expiry. A latch released or
-- expired has no key, so it may be set again. A hash rather than a string so that counting down is HINCRBY: exact
-- for any 64-bit count (Lua numbers are doubles) and within the commands of docs/acl.md, which has no DECR.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'count', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
