-- Read a latch's count (docs/count-down-latch.md). Writes nothing.
--
-- KEYS[1]  the latch: a hash whose field 'count' holds the count, with a PX expiry
--
-- Reply: {count} as a string, exact for any 64-bit count; '0' if the latch has none (never set, released, or
-- expired: Redis never returns an expired key)
return {redis.call('HMGET', KEYS[1], 'count')[1] or '0'}
