-- Lease.releaseAfter for one hold of a read-write lock (keys and fields: lib/rw-state.lua): its lease is set to end
-- a given time from now, shorter or longer than it was, if it is still held by the expected owner with the expected
-- token and has not run out. The hold is not removed: it runs out then, as a crashed holder's would, and the expiry
-- of the lock's keys is fitted to the leases left.
--
-- KEYS[1]  hash of holds
-- KEYS[2]  readers set
-- ARGV[1]  milliseconds from now until the hold's lease ends (at least 1)
-- ARGV[2]  "w" for a write hold, "r" for a read hold
-- ARGV[3]  owner id
-- ARGV[4]  fencing token of the hold
--
-- Reply: 1 if the lease was set, 0 if the hold is gone, ran out, or belongs to a later acquisition of the owner.
local now = rw_now()
local until_new = now + tonumber(ARGV[1])
local hash, readers, owner, token = KEYS[1], KEYS[2], ARGV[3], ARGV[4]
if ARGV[2] == 'w' then
  local h = redis.call('HMGET', hash, 'w', 'wt', 'we')
  if owns(h[1], h[2], owner, token) and (tonumber(h[3]) or 0) > now then
    redis.call('HSET', hash, 'we', rw_int(until_new))
    rw_fit(hash, readers, until_new, now)
    return 1
  end
else
  local h = redis.call('HMGET', hash, 't:' .. owner, 'we')
  local until_r = tonumber(redis.call('ZSCORE', readers, owner)) or 0
  if owns(h[1] and owner, h[1], owner, token) and until_r > now then
    redis.call('ZADD', readers, 'XX', rw_int(until_new), owner)
    rw_fit(hash, readers, tonumber(h[2]) or 0, now)
    return 1
  end
end
return 0
