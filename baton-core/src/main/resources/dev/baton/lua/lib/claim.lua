-- Shared helper of the plain lock's release and handoff scripts: what a holder's
-- last release does when a waiter that has waited past the fairness threshold claimed the lock (fields 'next',
-- 'next_since', 'next_until' of the lock hash; see lock-acquire.lua and docs/lock-protocol.md, "Bounded waits under
-- contention").
--
-- pass_to_claimant(key, claim): claim = {next, next_since, next_until} as read from the hash (read it only when
--   'waiters' is 2: absent fields cost an HMGET a scan of the hash). If the claim has not run out (next_until, in
--   Redis milliseconds), frees the lock but keeps a hash with the claim (and 'waiters' 2, so that the claimant's own
--   release wakes the others), lets it expire with the claim, and returns true: the caller then publishes
--   'next <claimant>', which wakes the claimant alone. Otherwise changes nothing and returns false (the caller then
--   deletes or hands over the lock as usual). The owner's fields go by DEL and a fresh hash rather than HDEL, so that
--   the lock needs no command beyond those listed in docs/acl.md. (It does not publish itself: a helper that calls
--   another helper costs every call of the script an upvalue, on the release path too.)
local function pass_to_claimant(key, claim)
  if not claim[1] then
    return false
  end
  local time = redis.call('TIME')
  local left = claim[3] - (time[1] * 1000 + math.floor(time[2] / 1000))
  if left <= 0 then
    return false
  end
  redis.call('DEL', key)
  redis.call('HSET', key, 'next', claim[1], 'next_since', claim[2], 'next_until', claim[3], 'waiters', 2)
  redis.call('PEXPIRE', key, left)
  return true
end

