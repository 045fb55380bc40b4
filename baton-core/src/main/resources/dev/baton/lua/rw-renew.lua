-- Watchdog: extend a batch of read-write lock holds, all of one side, each only if still held by the expected owner
-- with the expected token and its lease has not run out (keys and fields: lib/rw-state.lua).
--
-- KEYS[2i-1]  hash of holds of hold i's lock
-- KEYS[2i]    readers set of that lock
-- ARGV[1]     lease in milliseconds
-- ARGV[2]     "w" for write holds, "r" for read holds
-- ARGV[2i+1]  owner id of hold i
-- ARGV[2i+2]  fencing token of hold i
--
-- Reply: array, element i = 1 if hold i was renewed (or already had a longer lease), 0 if it is gone, ran out, or
-- belongs to a later acquisition of the same owner. Each reader is renewed on its own: a reader that is not renewed
-- (its process died) runs out one lease after its last renewal, whatever the other readers do.
local now = rw_now()
local until_new = now + tonumber(ARGV[1])
local write = ARGV[2] == 'w'
local result = {}
for i = 1, #KEYS / 2 do
  local hash, readers, owner, token = KEYS[2 * i - 1], KEYS[2 * i], ARGV[2 * i + 1], ARGV[2 * i + 2]
  result[i] = 0
  if write then
    local h = redis.call('HMGET', hash, 'w', 'wt', 'we')
    local until_w = tonumber(h[3]) or 0
    if owns(h[1], h[2], owner, token) and until_w > now then
      if until_new > until_w then
        redis.call('HSET', hash, 'we', rw_int(until_new))
        until_w = until_new
      end
      rw_fit(hash, readers, until_w, now)
      result[i] = 1
    end
  else
    local h = redis.call('HMGET', hash, 't:' .. owner, 'we')
    local until_r = tonumber(redis.call('ZSCORE', readers, owner)) or 0
    if owns(h[1] and owner, h[1], owner, token) and until_r > now then
      redis.call('ZADD', readers, 'GT', rw_int(until_new), owner)
      rw_fit(hash, readers, tonumber(h[2]) or 0, now)
      result[i] = 1
    end
  end
end
return result
