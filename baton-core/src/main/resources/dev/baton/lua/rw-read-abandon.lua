-- A read acquisition whose last try got no reply (a timeout, a lost connection) ended without the lock: report a read
-- hold of this owner that nobody will use, since that try may have run, or may still run (docs/lock-protocol.md,
-- "Acquisitions whose reply was lost"). Sent after every try of the attempt, on the same connection, so Redis runs
-- it after them. Readers leave no mark while they wait, so there is nothing else to withdraw.
--
-- KEYS[1]  hash of holds (keys and fields: lib/rw-state.lua)
-- ARGV[1]  owner id
-- ARGV[2]  token of the read hold the owner had before the attempt ("0" if none)
--
-- Reply: the fencing token of a read hold of this owner other than ARGV[2] (an orphaned grant, which the caller then
--        releases with rw-read-release.lua, owner and token named), or 0
local token = redis.call('HMGET', KEYS[1], 't:' .. ARGV[1])[1]
if token and token ~= ARGV[2] then
  return tonumber(token)
end
return 0
