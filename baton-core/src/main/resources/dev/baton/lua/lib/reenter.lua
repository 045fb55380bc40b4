-- Shared helper, prepended by Script to the acquire scripts of the locks kept in one hash with an owner and a count
-- (plain, fair, multi, Redlock): the one place where a re-entry is written. The owner's count goes up by one, and the
-- lease may lengthen, never shorten what the outer hold was promised.
--
-- reenter(key, lease_ms): key is the lock hash, lease_ms the lease asked for (a string or a number); returns the new
-- hold count.
local function reenter(key, lease_ms)
  local count = redis.call('HINCRBY', key, 'count', 1)
  if redis.call('PTTL', key) < tonumber(lease_ms) then
    redis.call('PEXPIRE', key, lease_ms)
  end
  return count
end
