-- Read a rate limiter's state without its configuration (BatonAdmin.rateLimiter, `baton inspect`): every limit
-- that has state, from what its keys hold (rate-decide.lua stores each limit's permits and period with its state).
-- Reads only.
--
-- KEYS  four per limit position i = 0, 1, ...: "<i>g" (GCRA), "<i>s" (sliding log), "<i>s:totals", "<i>f" (fixed
--       window), all under the limiter's hash tag
--
-- Reply: one entry per limit with state: {position (0-based), algorithm letter, permits, period us, used,
--        remaining (-1 if the permits are unknown: a state written before they were stored), resetAfter us}
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local floor, max = math.floor, math.max
local function ceildiv(a, b)
  return floor((a + b - 1) / b)
end

local out = {}
for i = 0, #KEYS / 4 - 1 do
  local g, log, totals, f = KEYS[4 * i + 1], KEYS[4 * i + 2], KEYS[4 * i + 3], KEYS[4 * i + 4]
  local state = redis.call('GET', g)
  if state then
    -- "tat frac p period burst": the debt is (tat - now) * p + frac ticks of 1/p us; burst * period ticks is full.
    local tat, frac, p, period, burst = string.match(state, '^(%d+) (%d+) (%d+) (%d+) (%d+)$')
    tat, frac, p, period, burst = tonumber(tat), tonumber(frac), tonumber(p), tonumber(period), tonumber(burst)
    if tat then
      local rel = 0
      if tat > now or (tat == now and frac > 0) then
        rel = (tat - now) * p + frac
      end
      local cap = burst * period
      table.insert(out, {i, 'g', p, period, ceildiv(rel, period), max(0, floor((cap - rel) / period)),
          ceildiv(rel, p)})
    end
  end
  local t = redis.call('HMGET', totals, 'sum', 'period', 'permits')
  if t[1] then
    local sum, period, p = tonumber(t[1]), tonumber(t[2]), tonumber(t[3])
    local newest = tonumber(redis.call('ZRANGE', log, -1, -1, 'WITHSCORES')[2])
    if period and newest and newest > now - period then
      -- Entries that left the window but were not trimmed yet still count in sum: take them off (at most 1,024 read;
      -- beyond that the answer counts more than is live, as the limiter itself does until it trims them).
      local gone = redis.call('ZRANGEBYSCORE', log, '-inf', string.format('%d', now - period), 'LIMIT', 0, 1024)
      for _, member in ipairs(gone) do
        sum = sum - tonumber(string.match(member, ':(%d+)$'))
      end
      table.insert(out, {i, 's', p or 0, period, sum, p and max(0, p - sum) or -1, max(0, newest + period - now)})
    end
  end
  state = redis.call('GET', f)
  if state then
    -- "end count next period [permits]"
    local e, c, x, period, p = string.match(state, '^(%d+) (%d+) (%d+) (%d+) ?(%d*)$')
    e, c, x, period, p = tonumber(e), tonumber(c), tonumber(x), tonumber(period), tonumber(p)
    if e then
      local used, reset
      if now < e then
        used, reset = c, (x > 0 and e + period or e) - now
      elseif now < e + period then
        used, reset = x, e + period - now
      end
      if used then
        table.insert(out, {i, 'f', p or 0, period, used, p and max(0, p - used) or -1, reset})
      end
    end
  end
end
return out
