-- An acquisition ended without the permits (timed out, interrupted, cancelled, failed): leave the queue, hand the
-- permits that this lets through to the waiters behind, and report permits this owner holds that nobody will use: a
-- try whose reply never came (a timeout, a lost connection) or a release that handed permits to this waiter may have
-- granted them, before this script or, sent as it is after every try of the attempt on the same connection, never
-- after it (docs/lock-protocol.md, "Acquisitions whose reply was lost").
--
-- KEYS[1]  semaphore hash: total (see lib/semaphore-state.lua and docs/semaphore.md)
-- KEYS[2]  holders hash
-- KEYS[3]  lease expiry of each holder
-- KEYS[4]  queue of waiters
-- KEYS[5]  waiters hash
-- KEYS[6]  fencing counter
-- ARGV[1]  owner id of the waiter
-- ARGV[2]  channel of this semaphore
-- ARGV[3]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
-- ARGV[4]  token of the lease the owner held before the attempt ("0" if none)
-- ARGV[5]  retention in milliseconds of the total and of the fencing counter once nobody holds a permit
--
-- Reply: {queued, orphan}: queued 1 if the waiter was in the queue, 0 if not (it never queued, its entry had expired,
--        or it was granted); orphan the fencing token of permits this owner holds under another token than ARGV[4]
--        (a grant nobody will use, which the caller then releases with semaphore-release.lua, owner and token
--        named), or 0
local now = sem_now()
local queued = redis.call('ZREM', KEYS[4], ARGV[1])
local st = sem_state(KEYS[2], KEYS[3], now, ARGV[1])
if queued == 1 then
  redis.call('HDEL', KEYS[5], ARGV[1])
  -- Waiters behind this one may fit in the free permits now (it waited for more than they do).
  sem_hand_on({semaphore = KEYS[1], holders = KEYS[2], expiry = KEYS[3], queue = KEYS[4], waiters = KEYS[5],
               counter = KEYS[6], retention = tonumber(ARGV[5]), channel = ARGV[2], sharded = ARGV[3]}, st, now)
end
if st.mine then
  local token = sem_holder(st.mine)
  if token ~= ARGV[4] then
    return {queued, tonumber(token)}
  end
end
return {queued, 0}
