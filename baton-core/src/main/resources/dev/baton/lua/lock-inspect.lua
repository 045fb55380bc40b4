-- Read everything an operator wants to know about one lock, atomically.
--
-- KEYS[1]  lock hash
-- KEYS[2]  fencing counter
--
-- Reply: {owner, count, token, holder, pttl, lastToken}; owner, count, token and holder are nil when the lock is
-- free, lastToken is nil when no token is remembered, pttl is -2 when the lock does not exist.
local h = redis.call('HMGET', KEYS[1], 'owner', 'count', 'token', 'holder')
return {h[1], h[2], h[3], h[4], redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[2])}
