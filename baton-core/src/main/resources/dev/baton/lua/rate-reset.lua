-- Forget everything a rate limiter has counted (BatonAdmin.resetRateLimiter, `baton limiter reset`): deletes the
-- state of every limit, so each is full again at once, for every process. Atomic: no decision sees half a reset.
--
-- KEYS  four per limit position, as rate-inspect.lua
--
-- Reply: how many limits had state
local limits = 0
for i = 0, #KEYS / 4 - 1 do
  if redis.call('EXISTS', KEYS[4 * i + 1], KEYS[4 * i + 3], KEYS[4 * i + 4]) > 0 then
    limits = limits + 1
  end
end
if limits > 0 then
  redis.call('DEL', unpack(KEYS))
end
return limits
