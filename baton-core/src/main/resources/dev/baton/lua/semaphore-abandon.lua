-- An acquisition ended without the permits (timed out, interrupted, cancelled, failed): leave the queue, and if it
-- was first, wake the new first waiter when the permits it waits for are free; and report permits this owner holds
-- that nobody will use: a try whose reply never came (a timeout, a lost connection) may have granted them, before
-- this script or, sent as it is after every try of the attempt on the same connection, never after it
-- (docs/lock-protocol.md, "Acquisitions whose reply was lost").
--
-- KEYS[1]  semaphore hash: total (see lib/semaphore-state.lua and docs/semaphore.md)
-- KEYS[2]  holders hash
-- KEYS[3]  lease expiry of each holder
-- KEYS[4]  queue of waiters
-- KEYS[5]  waiters hash
-- ARGV[1]  owner id of the waiter
-- ARGV[2]  channel of this semaphore
-- ARGV[3]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
-- ARGV[4]  token of the lease the owner held before the attempt ("0" if none)
--
-- Reply: {queued, orphan}: queued 1 if the waiter was in the queue, 0 if not (it never queued, or its entry had
--        expired); orphan the fencing token of permits this owner holds under another token than ARGV[4] (a grant
--        nobody will use, which the caller then releases with semaphore-release.lua, owner and token named), or 0
local now = sem_now()
local head = sem_head(KEYS[4], KEYS[5], now)
local queued = redis.call('ZREM', KEYS[4], ARGV[1])
if queued == 1 then
  redis.call('HDEL', KEYS[5], ARGV[1])
  if head == ARGV[1] then
    local used = sem_purge_holders(KEYS[2], KEYS[3], now)
    local total = tonumber(redis.call('HMGET', KEYS[1], 'total')[1] or '0')
    sem_wake_head(KEYS[4], KEYS[5], now, total - used, ARGV[2], ARGV[3])
  end
end
local entry = redis.call('HMGET', KEYS[2], ARGV[1])[1]
if entry then
  local token = sem_holder(entry)
  if token ~= ARGV[4] then
    return {queued, tonumber(token)}
  end
end
return {queued, 0}
