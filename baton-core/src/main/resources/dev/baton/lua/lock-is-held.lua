-- Whether anyone holds the lock right now.
--
-- KEYS[1]  lock hash
--
-- Reply: 1 if it has an owner, 0 if not. Not EXISTS: a free lock's hash may live on for a moment, holding only a
-- waiter's claim (see lock-acquire.lua).
if redis.call('HMGET', KEYS[1], 'owner')[1] then
  return 1
end
return 0
