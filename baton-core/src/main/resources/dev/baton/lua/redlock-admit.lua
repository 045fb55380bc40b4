-- Admit a Redlock master that has no admission marker (see redlock-acquire.lua and docs/redlock.md): at once, for a
-- master of a new deployment, or after the longest lease, for a master that came back from a restart without its
-- data, so that every lock it held before has expired on the other masters by the time it takes part again (the
-- "delayed restart" rule). Whoever sets the marker first decides; later calls read it.
--
-- KEYS[1]  admission marker of this master
-- ARGV[1]  how long from now the master stays out, in milliseconds ("0": admitted at once)
--
-- Reply: how many milliseconds the master still stays out (0 if it takes part now).
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
redis.call('SET', KEYS[1], now + ARGV[1], 'NX')
local wait = redis.call('GET', KEYS[1]) - now
if wait < 0 then
  return 0
end
return wait
