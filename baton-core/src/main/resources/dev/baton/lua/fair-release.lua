-- Release one hold of a fair lock; at hold count zero hand the lock straight to the first live waiter.
--
-- KEYS[1]  lock hash
-- KEYS[2]  fencing counter
-- KEYS[3]  queue (lib/fair-queue.lua)
-- KEYS[4]  waiters
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the hold being released
-- ARGV[3]  channel of this lock
-- ARGV[4]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
-- ARGV[5]  fencing counter retention in milliseconds
--
-- Reply: n > 0  still held by the owner with n holds left
--        0      released: handed to the first live waiter (the new owner, with a fresh token and its own lease,
--               is named on the channel: "<owner> <token>", one message, for that waiter alone), or deleted if
--               nobody alive waits
--        -1     this hold is gone (expired, force-unlocked, taken over): nothing changed
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'count')
if not owns(held[1], held[2], ARGV[1], ARGV[2]) then
  return -1
end
if held[3] ~= '1' then
  return redis.call('HINCRBY', KEYS[1], 'count', -1)
end
fair_hand_on(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[5], ARGV[3], ARGV[4], fair_now())
return 0
