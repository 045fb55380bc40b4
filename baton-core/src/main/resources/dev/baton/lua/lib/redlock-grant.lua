-- Shared helper, prepended by Script to the Redlock's scripts that give a hold on one master (redlock-acquire.lua,
-- redlock-handoff.lua): the one place where a master accepts a proposed fencing token (docs/redlock.md).
--
-- redlock_grant(lock, counter, last, proposal, owner, lease, holder, retention): gives the lock hash to owner, hold
--   count 1, with the proposed token, if the proposal is above last (the counter's value, 0 when it has none), and
--   records it in the counter; returns true. A proposal not above last changes nothing and returns false. The hash's
--   other fields ('waiters') stay: a replaced hold still wakes the waiters of other processes when it is released.
local function redlock_grant(lock, counter, last, proposal, owner, lease, holder, retention)
  if tonumber(proposal) <= last then
    return false
  end
  redis.call('SET', counter, proposal, 'PX', retention)
  redis.call('HSET', lock, 'owner', owner, 'count', 1, 'token', proposal, 'holder', holder)
  redis.call('PEXPIRE', lock, lease)
  return true
end
