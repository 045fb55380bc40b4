-- Release one hold count of a reader; when its count reaches zero remove it and, if that was the last reader and
-- anyone waits, wake who can go now (keys and fields: lib/rw-state.lua).
--
-- KEYS[1]  hash of holds
-- KEYS[2]  readers
-- KEYS[3]  writers (waiting)
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the read hold being released
-- ARGV[3]  release channel (pub/sub) of this lock
-- ARGV[4]  "1" to publish even if no waiter marked the hash (the releasing Baton has local waiters)
-- ARGV[5]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: n > 0  still held by this reader with n holds left
--        0      released
--        -1     this hold is gone (its lease ran out, force-unlocked, or replaced): nothing changed
--
-- A reader leaving while other readers stay frees nobody (readers never wait for readers, writers wait for all of
-- them), so only the last reader's release publishes: 'w' if writers wait, see rw_wake.
local now = rw_now()
local owner = ARGV[1]
local held = redis.call('HMGET', KEYS[1], 't:' .. owner, 'c:' .. owner, 'waiters')
local until_r = tonumber(redis.call('ZSCORE', KEYS[2], owner)) or 0
if not owns(held[1] and owner, held[1], owner, ARGV[2]) or until_r <= now then
  return -1
end
if held[2] ~= '1' then
  return redis.call('HINCRBY', KEYS[1], 'c:' .. owner, -1)
end
redis.call('HDEL', KEYS[1], 'c:' .. owner, 't:' .. owner, 'h:' .. owner)
redis.call('ZREM', KEYS[2], owner)
local writer, until_w = rw_purge(KEYS[1], KEYS[2], KEYS[3], now)
rw_fit(KEYS[1], KEYS[2], until_w, now)
if (held[3] or ARGV[4] == '1') and redis.call('EXISTS', KEYS[2]) == 0 then
  rw_wake(KEYS[2], KEYS[3], writer, ARGV[3], ARGV[5])
end
return 0
