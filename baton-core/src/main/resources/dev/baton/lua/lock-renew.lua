-- Watchdog: extend a batch of locks, each only if still held by the expected owner with the expected token.
--
-- KEYS[i]     lock hash i (one master holds them all; on Cluster a batch would have to share a hash slot)
-- ARGV[1]     lease in milliseconds
-- ARGV[2i]    owner id expected for KEYS[i]
-- ARGV[2i+1]  fencing token of that owner's hold
--
-- Reply: array, element i = 1 if lock i was renewed (or already had a longer lease), 0 if it is gone or held by
-- someone else or by a later acquisition of the same owner. A renewal never re-creates a released lock, and a
-- renewal that was on its way while its hold was released cannot stretch the owner's next (fixed) lease.
local lease = tonumber(ARGV[1])
local result = {}
for i = 1, #KEYS do
  local held = redis.call('HMGET', KEYS[i], 'owner', 'token')
  if owns(held[1], held[2], ARGV[2 * i], ARGV[2 * i + 1]) then
    if redis.call('PTTL', KEYS[i]) < lease then
      redis.call('PEXPIRE', KEYS[i], lease)
    end
    result[i] = 1
  else
    result[i] = 0
  end
end
return result
