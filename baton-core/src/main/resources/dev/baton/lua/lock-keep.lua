-- Lease.releaseAfter: leave one hold to expire a given time from now instead of deleting it, if it is still held by
-- the expected owner with the expected token. Unlike lock-renew.lua it may shorten the lease as well as lengthen it:
-- the lock must become free at that moment, not one watchdog lease later. The hold count does not matter: the
-- whole hold ends then.
--
-- KEYS[1]  lock hash
-- ARGV[1]  milliseconds from now until the lock expires (at least 1)
-- ARGV[2]  owner id expected
-- ARGV[3]  fencing token of that owner's hold
--
-- Reply: 1 if the expiry was set, 0 if the lock is gone, held by someone else or by a later acquisition.
local held = redis.call('HMGET', KEYS[1], 'owner', 'token')
if owns(held[1], held[2], ARGV[2], ARGV[3]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return 1
end
return 0
