-- Release the permits of one lease of a semaphore and wake the first waiter if it can have what it waits for now.
--
-- KEYS[1]  semaphore hash: total (see lib/semaphore-state.lua and docs/semaphore.md)
-- KEYS[2]  holders hash
-- KEYS[3]  lease expiry of each holder
-- KEYS[4]  queue of waiters
-- KEYS[5]  waiters hash
-- ARGV[1]  owner id of the lease
-- ARGV[2]  fencing token of the lease
-- ARGV[3]  channel of this semaphore
-- ARGV[4]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: 0   released (and the first waiter woken, by name, if the permits it waits for are now free)
--        -1  this lease is gone (its lease ran out, or a later acquisition replaced it): nothing changed
--
-- Owner and token must both match, so a stale handle can never release the permits of a newer lease. The total is
-- never changed by a release.
local now = sem_now()
local used = sem_purge_holders(KEYS[2], KEYS[3], now)
local entry = redis.call('HMGET', KEYS[2], ARGV[1])[1]
local token, permits
if entry then
  token, permits = sem_holder(entry)
end
if not owns(entry and ARGV[1], token, ARGV[1], ARGV[2]) then
  return -1
end
used = used - permits
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
sem_set_used(KEYS[2], used)
local total = tonumber(redis.call('HMGET', KEYS[1], 'total')[1] or '0')
sem_wake_head(KEYS[4], KEYS[5], now, total - used, ARGV[3], ARGV[4])
return 0
