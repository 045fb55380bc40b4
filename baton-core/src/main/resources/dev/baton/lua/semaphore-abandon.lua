-- A waiter gives up (timed out, interrupted, cancelled, failed): leave the queue, and if it was first, wake the new
-- first waiter when the permits it waits for are free.
--
-- KEYS[1]  semaphore hash: total (see lib/semaphore-state.lua and docs/semaphore.md)
-- KEYS[2]  holders hash
-- KEYS[3]  lease expiry of each holder
-- KEYS[4]  queue of waiters
-- KEYS[5]  waiters hash
-- ARGV[1]  owner id of the waiter
-- ARGV[2]  channel of this semaphore
-- ARGV[3]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: 1 if the waiter was in the queue, 0 if not (it never queued, or its entry had expired)
local now = sem_now()
local head = sem_head(KEYS[4], KEYS[5], now)
if redis.call('ZREM', KEYS[4], ARGV[1]) == 0 then
  return 0
end
redis.call('HDEL', KEYS[5], ARGV[1])
if head == ARGV[1] then
  local used = sem_purge_holders(KEYS[2], KEYS[3], now)
  local total = tonumber(redis.call('HMGET', KEYS[1], 'total')[1] or '0')
  sem_wake_head(KEYS[4], KEYS[5], now, total - used, ARGV[2], ARGV[3])
end
return 1
