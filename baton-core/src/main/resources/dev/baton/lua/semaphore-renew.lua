-- Watchdog: extend the leases of a batch of semaphore holders, each only if its owner and token still match.
--
-- KEYS[3i-2]  semaphore hash of hold i (its expiry follows the leases: the total outlives the last one)
-- KEYS[3i-1]  holders hash of hold i
-- KEYS[3i]    lease expiry sorted set of hold i
-- ARGV[1]     lease in milliseconds
-- ARGV[2]     retention in milliseconds of the total once nobody holds a permit
-- ARGV[2i+1]  owner id of hold i
-- ARGV[2i+2]  fencing token of hold i
--
-- Reply: array, element i = 1 if hold i was renewed (or already had a longer lease), 0 if it is gone: its lease
-- ran out (its permits may be someone else's by now, so it is never revived) or it was released.
local now = sem_now()
local lease = tonumber(ARGV[1])
local retention = tonumber(ARGV[2])
local result = {}
for i = 1, #KEYS / 3 do
  local k = {semaphore = KEYS[3 * i - 2], holders = KEYS[3 * i - 1], expiry = KEYS[3 * i], retention = retention}
  local owner = ARGV[2 * i + 1]
  local st = sem_state(k.holders, k.expiry, now, owner)
  local token
  if st.mine then
    token = sem_holder(st.mine)
  end
  if owns(st.mine and owner, token, owner, ARGV[2 * i + 2]) then
    redis.call('ZADD', k.expiry, 'GT', now + lease, owner) -- GT: never pulls a lease end in
    sem_keep(k, st, now, lease)
    result[i] = 1
  else
    result[i] = 0
  end
end
return result
