-- Release one hold count of the writer; at zero remove the write hold and, if anyone waits, wake who can go now
-- (keys and fields: lib/rw-state.lua).
--
-- KEYS[1]  hash of holds
-- KEYS[2]  readers
-- KEYS[3]  writers (waiting)
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the write hold being released
-- ARGV[3]  release channel (pub/sub) of this lock
-- ARGV[4]  "1" to publish even if no waiter marked the hash (the releasing Baton has local waiters)
-- ARGV[5]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: n > 0  still held by this writer with n holds left
--        0      released
--        -1     this hold is gone (its lease ran out, force-unlocked, or replaced): nothing changed
--
-- After the writer leaves: if no writer waits, every waiting reader may go, and 'all' wakes them all at once; if
-- writers wait, the next writer goes once no reader holds ('w'; readers stay queued behind it). A downgraded writer
-- keeps its read hold, which the next writer waits for.
local now = rw_now()
local held = redis.call('HMGET', KEYS[1], 'w', 'wt', 'wc', 'we', 'waiters')
if not owns(held[1], held[2], ARGV[1], ARGV[2]) or (tonumber(held[4]) or 0) <= now then
  return -1
end
if held[3] ~= '1' then
  return redis.call('HINCRBY', KEYS[1], 'wc', -1)
end
redis.call('HDEL', KEYS[1], 'w', 'wc', 'wt', 'wh', 'we')
rw_purge(KEYS[1], KEYS[2], KEYS[3], now)
rw_fit(KEYS[1], KEYS[2], 0, now)
if held[5] or ARGV[4] == '1' then
  rw_wake(KEYS[2], KEYS[3], false, ARGV[3], ARGV[5])
end
return 0
