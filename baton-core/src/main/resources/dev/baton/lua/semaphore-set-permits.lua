-- Set the total number of permits of a semaphore (an administrative, deliberate change), and wake every waiter.
--
-- KEYS[1]  semaphore hash: total (see lib/semaphore-state.lua and docs/semaphore.md)
-- KEYS[2]  queue of waiters
-- ARGV[1]  the new total, at least 1
-- ARGV[2]  retention in milliseconds of the total once nobody holds a permit
-- ARGV[3]  channel of this semaphore
-- ARGV[4]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: the previous total, or 0 if the semaphore was new
--
-- Leases already granted keep their permits. Every waiter is woken ('all'), once: after a raise the first ones may
-- now have their permits, after a cut a waiter for more permits than the new total learns it at once.
local previous = redis.call('HMGET', KEYS[1], 'total')[1]
redis.call('HSET', KEYS[1], 'total', ARGV[1])
sem_extend(KEYS[1], tonumber(ARGV[2]))
if redis.call('EXISTS', KEYS[2]) == 1 then
  notify(ARGV[3], ARGV[4], 'all')
end
return tonumber(previous or '0')
