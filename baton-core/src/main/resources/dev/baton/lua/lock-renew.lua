-- Watchdog: extend a batch of locks, each only if still held by the expected owner.
--
-- KEYS[i]    lock hash i (all keys of one call live in one Cluster hash slot)
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  owner id expected for KEYS[i]
--
-- Reply: array, element i = 1 if lock i was renewed (or already had a longer lease), 0 if it is gone or owned by
-- someone else. A renewal never re-creates a released lock: it only touches a hash whose owner matches.
local lease = tonumber(ARGV[1])
local result = {}
for i = 1, #KEYS do
  if redis.call('HGET', KEYS[i], 'owner') == ARGV[i + 1] then
    if redis.call('PTTL', KEYS[i]) < lease then
      redis.call('PEXPIRE', KEYS[i], lease)
    end
    result[i] = 1
  else
    result[i] = 0
  end
end
return result
