-- Withdraw the claim of a waiter that stopped waiting (timed out, interrupted, cancelled) without the lock, so that
-- the lock does not wait for it until the claim runs out. Sent only by waiters that waited past their fairness
-- threshold (they may have claimed; see lock-acquire.lua), after their last try.
--
-- KEYS[1]  lock hash
-- ARGV[1]  owner id of the waiter
-- ARGV[2]  release channel (pub/sub) of this lock
-- ARGV[3]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: 1 if the waiter's claim was withdrawn, 0 if it had none (another waiter's claim stays untouched)
--
-- On a held lock the claim is marked run out ('next_until' 0; the fields go with the hash at the release). A free lock
-- that was waiting for this claimant alone (its hash holds nothing but the claim and the 'waiters' mark) is deleted,
-- and the other waiters are woken to take it.
local held = redis.call('HMGET', KEYS[1], 'owner', 'next')
if held[2] ~= ARGV[1] then
  return 0
end
if held[1] then
  redis.call('HSET', KEYS[1], 'next_until', 0)
else
  redis.call('DEL', KEYS[1])
  notify(ARGV[2], ARGV[3])
end
return 1
