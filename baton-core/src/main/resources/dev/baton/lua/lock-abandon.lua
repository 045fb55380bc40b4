-- An attempt ended without the lock: withdraw the claim of a waiter that stopped waiting (timed out, interrupted,
-- cancelled), so that the lock does not wait for it until the claim runs out, and report a grant of this owner that
-- nobody will use. Sent after the attempt's last try, on the same connection, so Redis runs it after every try of
-- the attempt: by waiters that waited past their fairness threshold (they may have claimed; see lock-acquire.lua),
-- and by any attempt whose last try got no reply (a timeout, a lost connection): that try may have run, or may still
-- run, and granted a lock its caller was told it did not get (docs/lock-protocol.md, "Acquisitions whose reply was
-- lost").
--
-- KEYS[1]  lock hash
-- ARGV[1]  owner id of the waiter
-- ARGV[2]  release channel (pub/sub) of this lock
-- ARGV[3]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
-- ARGV[4]  token of the hold the owner had before the attempt ("0" if none): a re-entry's outer hold is the caller's
--
-- Reply: {withdrawn, orphan}: withdrawn 1 if the waiter's claim was withdrawn, 0 if it had none (another waiter's
--        claim stays untouched); orphan the fencing token of a hold of this owner other than ARGV[4] (a grant nobody
--        will use, which the caller then releases with lock-release.lua, owner and token named), or 0
--
-- On a held lock the claim is marked run out ('next_until' 0; the fields go with the hash at the release). A free lock
-- that was waiting for this claimant alone (its hash holds nothing but the claim and the 'waiters' mark) is deleted,
-- and the other waiters are woken to take it.
local held = redis.call('HMGET', KEYS[1], 'owner', 'next', 'token')
local orphan = 0
if held[1] == ARGV[1] and held[3] ~= ARGV[4] then
  orphan = tonumber(held[3])
end
if held[2] ~= ARGV[1] then
  return {0, orphan}
end
if held[1] then
  redis.call('HSET', KEYS[1], 'next_until', 0)
else
  redis.call('DEL', KEYS[1])
  notify(ARGV[2], ARGV[3])
end
return {1, orphan}
