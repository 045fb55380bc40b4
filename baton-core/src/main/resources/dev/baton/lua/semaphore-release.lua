-- Release the permits of one lease of a semaphore and hand free permits to the first waiters, in order.
--
-- KEYS[1]  semaphore hash: total (see lib/semaphore-state.lua and docs/semaphore.md)
-- KEYS[2]  holders hash
-- KEYS[3]  lease expiry of each holder
-- KEYS[4]  queue of waiters
-- KEYS[5]  waiters hash
-- KEYS[6]  fencing counter
-- ARGV[1]  owner id of the lease
-- ARGV[2]  fencing token of the lease
-- ARGV[3]  channel of this semaphore
-- ARGV[4]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
-- ARGV[5]  retention in milliseconds of the total and of the fencing counter once nobody holds a permit
--
-- Reply: 0   released (and the permits now free handed to the first waiters that they satisfy, in queue order, each
--            told "<owner> <token>")
--        -1  this lease is gone (its lease ran out, or it was released already): nothing changed
--
-- Owner and token must both match, so a stale handle can never release the permits of a newer lease. The total is
-- never changed by a release.
local now = sem_now()
local st = sem_state(KEYS[2], KEYS[3], now, ARGV[1])
local token, permits
if st.mine then
  token, permits = sem_holder(st.mine)
end
if not owns(st.mine and ARGV[1], token, ARGV[1], ARGV[2]) then
  return -1
end
st.used = st.used - permits
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
sem_set_used(KEYS[2], st)
sem_hand_on({semaphore = KEYS[1], holders = KEYS[2], expiry = KEYS[3], queue = KEYS[4], waiters = KEYS[5],
             counter = KEYS[6], retention = tonumber(ARGV[5]), channel = ARGV[3], sharded = ARGV[4]}, st, now)
return 0
