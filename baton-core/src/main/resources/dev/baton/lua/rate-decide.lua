-- Decide a rate-limited request against every limit of one limiter: all limits admit it and all are charged, or
-- nothing is written. See docs/rate-limiting.md for the algorithms and their accuracy.
--
-- ARGV[1]  "take" to charge the permits if admitted, "peek" to only answer (writes nothing)
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
--   remaining  permits that could still be taken at once (the smallest over the limits)
--   retryAfter when refused: time until the request could succeed (the largest over the limits); else 0
--   resetAfter time until every limit is back to full if nothing more is taken
--   wait       when allowed: time until the reserved permits are due (0 unless the caller accepted a wait)
--   binding    the limit the numbers describe: fewest remaining when allowed, longest retry when refused
--
-- Numbers: Redis Lua has only doubles, exact for integers below 2^53. Times are microseconds on the Redis clock
-- (~1.8e15 today). GCRA works in "ticks" of 1/p microsecond so that a period / p that is not a whole number of
-- microseconds stays exact; callers keep burst * period below 2^52 ticks-per-p. Numbers passed back to Redis go
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

-- GCRA. State: "tat frac p period": the theoretical arrival time TAT = tat + frac/p microseconds, and the rate it
-- was written with. rel = (TAT - now) in ticks is the debt: rel / period permits are spent and not yet replenished.
-- A request of n is admitted when rel + n*period <= burst*period, and TAT moves on by n*period ticks.
--
--      now                      TAT             now + burst*period/p
--   ----|------------------------|--------------------|----->  time
--       |<-- rel: spent permits->|<- still free ----->|
local function gcra(key, p_arg, period_arg, burst_arg)
  local p, period = tonumber(p_arg), tonumber(period_arg)
  local cap = tonumber(burst_arg) * period
  local rel = 0
  local state = redis.call('GET', key)
  if state then
    local tat, frac, p0, period0 = string.match(state, '^(%d+) (%d+) (%d+) (%d+)$')
    tat, frac, p0, period0 = tonumber(tat), tonumber(frac), tonumber(p0), tonumber(period0)
    if tat and (tat > now or (tat == now and frac > 0)) then
      rel = (tat - now) * p0 + frac
      if period0 ~= period then
        -- The rate changed: the spent permits (rel / period0) stay spent, counted in the new period's ticks, and
        -- at most a full burst of them, so that a smaller burst cannot lock the limit for longer than it lasts.
        rel = math.min(math.ceil(rel / period0 * period), cap)
      end
    end
  end
  local need = rel + n * period
  local over = need - cap
  local r = {ok = true, wait = 0, retry = 0}
  if over > 0 then
    local due = ceildiv(over, p)
    if due <= maxwait then
      r.wait = due
    else
      r.ok, r.retry = false, due
    end
  end
  local after = r.ok and need or rel
  r.remaining = math.max(0, math.floor((cap - after) / period))
  r.reset = ceildiv(after, p)
  r.fits = function(due) return true end -- a later use than its own due time only wastes
  r.commit = function(due)
    redis.call('SET', key, fmt(now + math.floor(need / p)) .. ' ' .. fmt(need % p) .. ' ' .. p_arg .. ' '
        .. period_arg, 'PX', ttl(r.reset))
  end
  return r
end

-- Sliding-window log. The log holds one entry per admitted request: score = the time it counts from, member =
-- "<seq>:<permits>". The totals hash keeps the sum of the live entries and the last seq. An entry is live while
-- score > now - period. A request fits when sum + n <= p; otherwise it is due when enough of the oldest entries
-- have left the window, and a reservation is logged at that future time.
local function sliding(log, totals, p_arg, period_arg)
  local p, period = tonumber(p_arg), tonumber(period_arg)
  local cutoff = fmt(now - period)
  local t = redis.call('HMGET', totals, 'sum', 'seq')
  local sum, seq = tonumber(t[1]) or 0, tonumber(t[2]) or 0
  local gone = redis.call('ZRANGEBYSCORE', log, '-inf', cutoff)
  for _, member in ipairs(gone) do
    sum = sum - tonumber(string.match(member, ':(%d+)$'))
  end
  local last = redis.call('ZRANGE', log, -1, -1, 'WITHSCORES')
  local newest = tonumber(last[2]) or 0
  if newest <= now - period then
    sum = 0 -- nothing live: whatever the totals say
  end
  local r = {ok = true, wait = 0, retry = 0}
  if sum + n > p then
    -- The oldest entries leave first; each holds at least one permit, so sum + n - p entries are enough.
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
  r.remaining = (r.ok and r.wait == 0) and (p - sum - n) or math.max(0, r.ok and 0 or p - sum)
  r.reset = math.max(newest + period - now, 0)
  if r.ok then
    r.reset = math.max(newest, now + r.wait) + period - now
  end
  r.fits = function(due) return true end -- logging the entry later than needed is only stricter
  r.commit = function(due)
    if #gone > 0 then
      redis.call('ZREMRANGEBYSCORE', log, '-inf', cutoff)
    end
    seq = seq + 1
    redis.call('ZADD', log, fmt(due), fmt(seq) .. ':' .. n)
    redis.call('HSET', totals, 'sum', fmt(sum + n), 'seq', fmt(seq))
    local keep = ttl(math.max(newest, due) + period - now)
    redis.call('PEXPIRE', log, keep)
    redis.call('PEXPIRE', totals, keep)
  end
  return r
end

-- Fixed window. State: "end count next": the end of the current window, the permits taken in it, and the permits
-- reserved in the window after it. Windows are aligned to multiples of the period on the Redis clock; after a
-- period change, the current window keeps its end. A reservation may go into the next window only.
local function fixed(key, p_arg, period_arg)
  local p, period = tonumber(p_arg), tonumber(period_arg)
  local wend, count, nxt = now - now % period + period, 0, 0
  local state = redis.call('GET', key)
  if state then
    local e, c, x = string.match(state, '^(%d+) (%d+) (%d+)$')
    e, c, x = tonumber(e), tonumber(c), tonumber(x)
    if e and now < e then
      wend, count, nxt = e, c, x
    elseif e and now < e + period then
      wend, count, nxt = e + period, x, 0
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
  r.remaining = (r.ok and r.wait == 0) and (p - count - n) or math.max(0, r.ok and 0 or p - count)
  local reserved = nxt > 0 or (r.ok and r.wait > 0)
  r.reset = (reserved and wend + period or wend) - now
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
    local reset = (nxt > 0 and wend + period or wend) - now
    redis.call('SET', key, fmt(wend) .. ' ' .. fmt(count) .. ' ' .. fmt(nxt), 'PX', ttl(reset))
  end
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
    if not r.fits(due) then
      allowed, r.ok, r.retry = false, false, wait
    end
  end
end
if allowed and take then
  for _, r in ipairs(limits) do
    r.commit(due)
  end
end

local remaining, retry, reset, binding = nil, 0, 0, 1
for i, r in ipairs(limits) do
  reset = math.max(reset, r.reset)
  if allowed then
    if remaining == nil or r.remaining < remaining then
      remaining, binding = r.remaining, i
    end
  else
    local r_retry = r.ok and r.wait or r.retry
    if not r.ok and r_retry >= retry then
      retry, binding = r_retry, i
    end
    remaining = math.min(remaining or r.remaining, r.remaining)
  end
end
if not allowed then
  wait = 0
  for _, r in ipairs(limits) do
    if r.ok then
      retry = math.max(retry, r.wait)
    end
  end
end
return {allowed and 1 or 0, remaining, retry, reset, wait, binding}
