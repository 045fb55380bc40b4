-- Administrative release of every lease of a semaphore (BatonAdmin.forceUnlock): whoever holds permits loses them,
-- and the permits now free go to the first waiters, in queue order, as after a release. The total and the fencing
-- counter stay, so the next lease's token is still higher. The holders learn it at their next renewal, which finds
-- their entry gone.
--
-- KEYS[1..6]  semaphore hash, holders hash, lease expiry, queue, waiters hash, fencing counter (as
--             semaphore-release.lua)
-- ARGV[1]     channel of this semaphore
-- ARGV[2]     "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
-- ARGV[3]     retention in milliseconds of the total and of the fencing counter once nobody holds a permit
--
-- Reply: the permits the removed leases held (0: nobody held a permit; nothing changed but the removal of expired
-- leases). Read from the holders' `used`, so the script needs no command beyond the application's ACL rule.
local now = sem_now()
local st = sem_state(KEYS[2], KEYS[3], now, '')
local held = st.used
if held <= 0 then
  return 0
end
redis.call('DEL', KEYS[2], KEYS[3])
st.used, st.horizon, st.mine = 0, 0, nil
sem_hand_on({semaphore = KEYS[1], holders = KEYS[2], expiry = KEYS[3], queue = KEYS[4], waiters = KEYS[5],
             counter = KEYS[6], retention = tonumber(ARGV[3]), channel = ARGV[1], sharded = ARGV[2]}, st, now)
return held
