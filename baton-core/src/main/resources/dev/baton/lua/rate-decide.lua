-- Decide a rate-limited request against every limit of one limiter: all limits admit it and all are charged, or
-- nothing is written. See docs/rate-limiting.md for the algorithms and their accuracy.
--
-- ARGV[1]  "take" to charge the permits if admitted, "peek" to only answer (charges nothing; like a refused take,
--          it may tidy: trim expired log entries, store a converted state after a limit changed)
-- ARGV[2]  permits n (1 <= n <= the smallest burst; checked by the caller)
-- ARGV[3]  longest wait the caller accepts for a reservation, in microseconds ("0": only now)
-- ARGV[4]  number of limits L
-- ARGV[5 + 4(i-1) ..]  for limit i: algorithm ("g" GCRA, "s" sliding-window log, "f" fixed window), permits p,
--                      period in microseconds, burst b (GCRA only; the others pass p)
-- KEYS     per limit, in order: GCRA one string; sliding log the log (sorted set) and its totals (hash);
--          fixed window one string. All share the limiter's hash tag.
--
-- Reply: {allowed, remaining, retryAfter us, resetAfter us, wait us, binding limit (1-based)}
--   allowed    1 if every limit admits the permits within the accepted wait (and, for "take", they were charged)
--   remaining  permits that could still be taken at once after this request (the fewest over the limits)
--   retryAfter when refused: time until the request could succeed (the longest over the limits); else 0
--   resetAfter time until every limit is back to full if nothing more is taken (the longest over the limits)
--   wait       when allowed: time until the reserved permits are due (0 unless the caller accepted a wait)
--   binding    the limit that decided: fewest remaining when allowed, longest retry among those that refused
--
-- Numbers: Redis Lua has only doubles, exact for integers below 2^53. Times are microseconds on the Redis clock
-- (~1.8e15 today). GCRA works in "ticks" of 1/p microsecond so that a period / p that is not a whole number of
-- microseconds stays exact; callers keep burst * period at most 2^51 and p at most 2^40, and a reservation may not
-- push a debt past 2^51 ticks, so every intermediate value stays below 2^53. Numbers passed back to Redis go
-- through fmt(), since Lua 5.1 would print them with 14 digits or in exponent notation.

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local take = ARGV[1] == 'take'
local n = tonumber(ARGV[2])
local maxwait = tonumber(ARGV[3])

local function fmt(x)
  return string.format('%.0f', x)
end

local function ceildiv(a, b)
  return math.floor((a + b - 1) / b)
end

local function ttl(us)
  return fmt(math.max(1, ceildiv(us, 1000)))
end

-- Permits left by a window algorithm with `used` of its `p` taken: what is free now if the request is refused,
-- nothing if it is reserved for later, else what remains once it is charged.
local function window_remaining(r, used, p)
  if not r.ok then
    return math.max(0, p - used)
  end
  return r.wait == 0 and p - used - n or 0
end

-- Each algorithm returns its verdict on one limit: ok, wait, retry, remaining, reset_now, reset_charged; commit(due)
-- to charge it; and where needed fits(due) (may it be charged for that later moment?) and tidy() (writes that are no
-- charge, for a refused request or a peek). A limit without fits() accepts any later moment.

-- GCRA. State: "tat frac p period burst": the theoretical arrival time TAT = tat + frac/p microseconds, and the
-- limit it was written with. rel = (TAT - now) in ticks is the debt: rel / period permits are spent and not yet
-- replenished. A request of n is admitted when rel + n*period <= burst*period, and TAT moves on by n*period ticks.
--
--      now                      TAT             now + burst*period/p
--   ----|------------------------|--------------------|----->  time
--       |<-- rel: spent permits->|<- still free ----->|
local function gcra_write(r, total)
  redis.call('SET', r.key, fmt(now + math.floor(total / r.p)) .. ' ' .. fmt(total % r.p) .. ' ' .. r.limit, 'PX',
      ttl(ceildiv(total, r.p)))
end

local function gcra(key, p_arg, period_arg, burst_arg)
  local p, period, burst = tonumber(p_arg), tonumber(period_arg), tonumber(burst_arg)
  local limit = p_arg .. ' ' .. period_arg .. ' ' .. burst_arg
  local cap = burst * period
  local rel, changed = 0, false
  local state = redis.call('GET', key)
  if state then
    local tat, frac, limit0 = string.match(state, '^(%d+) (%d+) (.*)$')
    tat, frac = tonumber(tat), tonumber(frac)
    if tat and (tat > now or (tat == now and frac > 0)) then
      if limit0 == limit then
        rel = (tat - now) * p + frac
      else
        -- The limit changed: the spent permits (rel / period0) stay spent, counted in the new period's ticks, and
        -- at most a full burst of them, so that a smaller burst cannot lock the limit for longer than it lasts.
        local p0, period0 = string.match(limit0, '^(%d+) (%d+)')
        p0, period0 = tonumber(p0), tonumber(period0)
        rel = (tat - now) * p0 + frac
        if period0 ~= period then
          rel = math.ceil(rel / period0 * period)
        end
        rel, changed = math.min(rel, cap), true
      end
    end
  end
  local need = rel + n * period
  local over = need - cap
  local r = {ok = true, wait = 0, retry = 0, key = key, p = p, limit = limit}
  if over > 0 then
    local due = ceildiv(over, p)
    -- A reservation may not push the debt past 2^51 ticks, so that every number here stays exact.
    if due <= maxwait and over <= 2 ^ 51 then
      r.wait = due
    else
      r.ok, r.retry = false, due
    end
  end
  r.remaining = math.max(0, math.floor((cap - (r.ok and need or rel)) / period))
  r.reset_now, r.reset_charged = ceildiv(rel, p), ceildiv(need, p)
  r.commit = function(due)
    -- Charged for the moment the permits are used (TAT' = max(TAT, due) + n*T), which may be later than their own
    -- due time when another limit makes the request wait.
    local total = math.max(rel, (due - now) * p) + n * period
    gcra_write(r, total)
    r.reset_charged = ceildiv(total, p)
  end
  if changed then
    r.tidy = function()
      gcra_write(r, rel) -- store the converted debt with a TTL that matches it, so it is not forgotten early
    end
  end
  return r
end

-- Sliding-window log. The log holds one entry per admitted request: score = the time it counts from, member =
-- "<seq>:<permits>". The totals hash keeps the sum of the permits in the log, the last seq and the period. An entry
-- is live while score > now - period. A request fits when sum + n <= p; otherwise it is due when enough of the
-- oldest entries have left the window, and a reservation is logged at that future time.
--
-- Expired entries are trimmed, at most 256 per call so that no call is slow; those left over still count in sum
-- until a later call trims them, which can only make the limiter stricter, never looser.
local function sliding(log, totals, p_arg, period_arg)
  local p, period = tonumber(p_arg), tonumber(period_arg)
  local cutoff = fmt(now - period)
  local t = redis.call('HMGET', totals, 'sum', 'seq', 'period')
  local sum, seq = tonumber(t[1]), tonumber(t[2]) or 0
  local last = redis.call('ZRANGE', log, -1, -1, 'WITHSCORES')
  local newest = tonumber(last[2])
  local dirty = t[3] ~= period_arg
  if not newest or newest <= now - period then
    if newest or sum then
      redis.call('DEL', log, totals) -- nothing live: start clean
    end
    sum, seq, newest, dirty = 0, 0, 0, false
  elseif not sum then
    -- The totals were lost (evicted, deleted) but the log was not: rebuild them from the log.
    redis.call('ZREMRANGEBYSCORE', log, '-inf', cutoff)
    sum = 0
    for _, member in ipairs(redis.call('ZRANGE', log, 0, -1)) do
      local s, k = string.match(member, '^(%d+):(%d+)$')
      sum, seq = sum + tonumber(k), math.max(seq, tonumber(s))
    end
    dirty = true
  else
    local gone = redis.call('ZRANGEBYSCORE', log, '-inf', cutoff, 'LIMIT', 0, 256)
    if #gone > 0 then
      for _, member in ipairs(gone) do
        sum = sum - tonumber(string.match(member, ':(%d+)$'))
      end
      redis.call('ZREM', log, unpack(gone))
      dirty = true
    end
  end
  local r = {ok = true, wait = 0, retry = 0}
  if sum + n > p then
    -- The oldest live entries leave first; each holds at least one permit, so sum + n - p entries are enough.
    local need = sum + n - p
    local oldest = redis.call('ZRANGEBYSCORE', log, '(' .. cutoff, '+inf', 'WITHSCORES', 'LIMIT', 0, need)
    local freed, due = 0, newest + period
    for i = 1, #oldest, 2 do
      freed = freed + tonumber(string.match(oldest[i], ':(%d+)$'))
      if freed >= need then
        due = tonumber(oldest[i + 1]) + period
        break
      end
    end
    if due - now <= maxwait then
      r.wait = due - now
    else
      r.ok, r.retry = false, due - now
    end
  end
  r.remaining = window_remaining(r, sum, p)
  r.reset_now = math.max(0, newest + period - now)
  r.reset_charged = math.max(newest, now + r.wait) + period - now
  local function expire(until_us)
    local keep = ttl(until_us - now)
    redis.call('PEXPIRE', log, keep)
    redis.call('PEXPIRE', totals, keep)
  end
  -- (No fits(): logging the entry later than needed is only stricter.)
  r.commit = function(due)
    seq = seq + 1
    redis.call('ZADD', log, fmt(due), fmt(seq) .. ':' .. n)
    redis.call('HSET', totals, 'sum', fmt(sum + n), 'seq', fmt(seq), 'period', period_arg)
    expire(math.max(newest, due) + period)
    r.reset_charged = math.max(newest, due) + period - now
  end
  r.tidy = function()
    if dirty then
      redis.call('HSET', totals, 'sum', fmt(sum), 'seq', fmt(seq), 'period', period_arg)
      expire(newest + period)
    end
  end
  return r
end

-- Fixed window. State: "end count next period": the end of the current window, the permits taken in it, the
-- permits reserved in the window after it, and the period they were counted with. Windows are aligned to multiples
-- of the period on the Redis clock. A reservation may go into the next window only.
local function fixed(key, p_arg, period_arg)
  local p, period = tonumber(p_arg), tonumber(period_arg)
  local wend, count, nxt = now - now % period + period, 0, 0
  local state = redis.call('GET', key)
  if state then
    local e, c, x, period0 = string.match(state, '^(%d+) (%d+) (%d+) (%d+)$')
    e, c, x, period0 = tonumber(e), tonumber(c), tonumber(x), tonumber(period0)
    if e and now < e then
      wend, count, nxt = e, c, x
    elseif e and now < e + period0 then
      -- The reserved window has begun. After a period change it is counted in the aligned window of the new
      -- period, which may overlap it: this once, up to twice the permits can pass within one new window.
      count = x
      if period0 == period then
        wend = e + period
      end
    end
  end
  local r = {ok = true, wait = 0, retry = 0}
  if count + n > p then
    if nxt + n <= p and wend - now <= maxwait then
      r.wait = wend - now
    else
      r.ok, r.retry = false, (nxt + n <= p) and (wend - now) or (wend + period - now)
    end
  end
  r.remaining = window_remaining(r, count, p)
  r.reset_now = (nxt > 0 and wend + period or wend) - now
  r.reset_charged = (r.wait > 0 and wend + period - now) or r.reset_now
  r.fits = function(due)
    if due < wend then
      return count + n <= p
    end
    return due < wend + period and nxt + n <= p
  end
  r.commit = function(due)
    if due < wend then
      count = count + n
    else
      nxt = nxt + n
    end
    r.reset_charged = (nxt > 0 and wend + period or wend) - now
    redis.call('SET', key, fmt(wend) .. ' ' .. fmt(count) .. ' ' .. fmt(nxt) .. ' ' .. period_arg, 'PX',
        ttl(r.reset_charged))
  end
  -- (No tidy(): a rolled-over window is rewritten on its next charge.)
  return r
end

local limits = {}
local k = 1
for i = 1, tonumber(ARGV[4]) do
  local a = 5 + (i - 1) * 4
  local algorithm = ARGV[a]
  if algorithm == 'g' then
    limits[i] = gcra(KEYS[k], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3])
    k = k + 1
  elseif algorithm == 's' then
    limits[i] = sliding(KEYS[k], KEYS[k + 1], ARGV[a + 1], ARGV[a + 2])
    k = k + 2
  else
    limits[i] = fixed(KEYS[k], ARGV[a + 1], ARGV[a + 2])
    k = k + 1
  end
end

-- All or nothing: the request is due when the last limit admits it, and every limit must accept it then.
local allowed, wait = true, 0
for _, r in ipairs(limits) do
  allowed = allowed and r.ok
  wait = math.max(wait, r.wait)
end
local due = now + wait
if allowed then
  for _, r in ipairs(limits) do
    if r.fits and not r.fits(due) then
      allowed, r.ok, r.retry = false, false, wait
    end
  end
end
for _, r in ipairs(limits) do
  if allowed and take then
    r.commit(due)
  elseif r.tidy then
    r.tidy()
  end
end

-- remaining: the fewest over the limits; retryAfter and resetAfter: the longest. The binding limit is the one with
-- the fewest remaining when allowed, and the one with the longest retry when refused.
local remaining, retry, reset, binding, worst = nil, 0, 0, 1, -1
for i, r in ipairs(limits) do
  reset = math.max(reset, allowed and r.reset_charged or r.reset_now)
  if remaining == nil or r.remaining < remaining then
    remaining = r.remaining
    if allowed then
      binding = i
    end
  end
  if not allowed then
    retry = math.max(retry, r.ok and r.wait or r.retry)
    if not r.ok and r.retry > worst then
      worst, binding = r.retry, i
    end
  end
end
return {allowed and 1 or 0, remaining, retry, reset, allowed and wait or 0, binding}
