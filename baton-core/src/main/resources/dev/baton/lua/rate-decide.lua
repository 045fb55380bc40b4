-- Decide a rate-limited request against every limit of one limiter: all limits admit it and all are charged, or
-- nothing is written. See docs/rate-limiting.md for the algorithms and their accuracy.
--
-- ARGV[1]  "take" to charge the permits if admitted, "peek" to only answer (charges nothing; like a refused take,
--          it may tidy: trim expired log entries, store a converted state after a limit changed)
-- ARGV[2]  permits n (1 <= n <= the smallest burst; checked by the caller)
-- ARGV[3]  longest wait the caller accepts for a reservation, in microseconds ("0": only now)
-- ARGV[4]  the algorithm of each limit, one letter per limit in order: "g" GCRA, "s" sliding-window log, "f" fixed
--          window (so "g" is one GCRA limit, "gs" a GCRA limit and a sliding log)
-- ARGV[5 + 3(i-1) ..]  for limit i: permits p, period in microseconds, burst b (GCRA only; the others pass p)
-- KEYS     per limit, in order: GCRA one string; sliding log the log (sorted set) and its totals (hash);
--          fixed window one string. All share the limiter's hash tag.
--
-- Reply: {allowed, remaining, retryAfter us, resetAfter us, wait us, binding limit (1-based)
--         [, binding remaining, binding resetAfter us]}
--   allowed    1 if every limit admits the permits within the accepted wait (and, for "take", they were charged)
--   remaining  permits that could still be taken at once after this request (the fewest over the limits)
--   retryAfter when refused: time until the request could succeed (the longest over the limits); else 0
--   resetAfter time until every limit is back to full if nothing more is taken (the longest over the limits)
--   wait       when allowed: time until the reserved permits are due (0 unless the caller accepted a wait)
--   binding    the limit that decided: fewest remaining when allowed (of those, the longest reset), longest retry
--              among those that refused
--   binding remaining, binding resetAfter: remaining and resetAfter of the binding limit alone (HTTP's RateLimit
--              field describes one limit); only with several limits: with one, they equal remaining and resetAfter
--
-- Numbers: Redis Lua has only doubles, exact for integers below 2^53. Times are microseconds on the Redis clock
-- (~1.8e15 today). GCRA works in "ticks" of 1/p microsecond so that a period / p that is not a whole number of
-- microseconds stays exact; callers keep burst * period at most 2^51 and p at most 2^40, and a reservation may not
-- push a debt past 2^51 ticks, so every intermediate value stays below 2^53. Numbers passed back to Redis are
-- printed with '%d', since Lua 5.1 would print them with 14 digits or in exponent notation.
--
-- Cost: this script runs for every decision, and Redis spends more on Lua's plumbing than on the algorithms
-- (docs/rate-limiting.md, "What a decision costs Redis"). Hence '%d' rather than '%.0f', the arguments "1" and "0"
-- compared rather than parsed, verdicts as arrays filled by multiple returns, the window algorithms' functions
-- created only when a limit uses them, and a shortcut for the common limiter of one GCRA limit.

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local take = ARGV[1] == 'take'
local n = ARGV[2] == '1' and 1 or tonumber(ARGV[2])
local maxwait = ARGV[3] == '0' and 0 or tonumber(ARGV[3])
local algorithms = ARGV[4]
local floor, max, min = math.floor, math.max, math.min

local function ceildiv(a, b)
  return floor((a + b - 1) / b)
end

-- A PX argument: milliseconds, at least 1.
local function ttl(us)
  return string.format('%d', max(1, ceildiv(us, 1000)))
end

-- Each algorithm checks one limit and returns its verdict: ok, wait, retry, remaining, reset_now, reset_charged,
-- followed by what its commit (charge the request for the moment `due`) and tidy (writes that are no charge, for a
-- refused request or a peek) need. The caller keeps them as an array, verdict[1..6] being the fields above.

-- GCRA. State: "tat frac p period burst": the theoretical arrival time TAT = tat + frac/p microseconds, and the
-- limit it was written with. rel = (TAT - now) in ticks is the debt: rel / period permits are spent and not yet
-- replenished. A request of n is admitted when rel + n*period <= burst*period, and TAT moves on by n*period ticks.
--
--      now                      TAT             now + burst*period/p
--   ----|------------------------|--------------------|----->  time
--       |<-- rel: spent permits->|<- still free ----->|
--
-- Its limit's arguments are ARGV[a .. a+2]. Verdict state: [7] rel, [8] changed (the stored limit differs), [9] p,
-- [10] period, [11] a.
local function gcra(key, a)
  local p_arg, period_arg, burst_arg = ARGV[a], ARGV[a + 1], ARGV[a + 2]
  local p, period = tonumber(p_arg), tonumber(period_arg)
  local cap = tonumber(burst_arg) * period
  local rel, changed = 0, false
  local state = redis.call('GET', key)
  if state then
    local tat, frac, p0, period0, burst0 = string.match(state, '^(%d+) (%d+) (%d+) (%d+) (%d+)$')
    tat, frac = tonumber(tat), tonumber(frac)
    if tat and (tat > now or (tat == now and frac > 0)) then
      if p0 == p_arg and period0 == period_arg and burst0 == burst_arg then
        rel = (tat - now) * p + frac
      else
        -- The limit changed: the spent permits (rel / period0) stay spent, counted in the new period's ticks, and
        -- at most a full burst of them, so that a smaller burst cannot lock the limit for longer than it lasts.
        p0, period0 = tonumber(p0), tonumber(period0)
        rel = (tat - now) * p0 + frac
        if period0 ~= period then
          rel = math.ceil(rel / period0 * period)
        end
        rel, changed = min(rel, cap), true
      end
    end
  end
  local need = rel + n * period
  local over = need - cap
  local ok, wait, retry = true, 0, 0
  if over > 0 then
    local due = ceildiv(over, p)
    -- A reservation may not push the debt past 2^51 ticks, so that every number here stays exact.
    if due <= maxwait and over <= 2 ^ 51 then
      wait = due
    else
      ok, retry = false, due
    end
  end
  return ok, wait, retry, max(0, floor((cap - (ok and need or rel)) / period)), ceildiv(rel, p), ceildiv(need, p),
      rel, changed, p, period, a
end

-- Stores a debt of `total` ticks, to expire when it is paid off; returns that time (the reset time).
local function gcra_store(key, p, a, total)
  local reset = ceildiv(total, p)
  redis.call('SET', key, string.format('%d %d %s %s %s', now + floor(total / p), total % p, ARGV[a], ARGV[a + 1],
      ARGV[a + 2]), 'PX', ttl(reset))
  return reset
end

-- Helpers of the window algorithms, created only when a limit uses one.
local fmt, window_remaining
if algorithms ~= 'g' then
  -- An integer as Redis needs it: '%d' prints every digit of a double below 2^63 (Lua 5.1 casts it to a C long).
  function fmt(x)
    return string.format('%d', x)
  end

  -- Permits left by a window algorithm with `used` of its `p` taken: what is free now if the request is refused,
  -- nothing if it is reserved for later, else what remains once it is charged.
  function window_remaining(ok, wait, used, p)
    if not ok then
      return max(0, p - used)
    end
    return wait == 0 and p - used - n or 0
  end
end

-- Sliding-window log. The log holds one entry per admitted request: score = the time it counts from, member =
-- "<seq>:<permits>". The totals hash keeps the sum of the permits in the log, the last seq, the period and the
-- permits per period (the last two for operators, who read a limiter without its configuration). An entry
-- is live while score > now - period. A request fits when sum + n <= p; otherwise it is due when enough of the
-- oldest entries have left the window, and a reservation is logged at that future time.
--
-- Expired entries are trimmed, at most 256 per call so that no call is slow; those left over still count in sum
-- until a later call trims them, which can only make the limiter stricter, never looser.
--
-- Verdict state: [7] sum, [8] seq, [9] newest, [10] dirty (the totals need writing), [11] period, [12] its string,
-- [13] the permits' string.
-- (Logging an entry later than needed is only stricter, so any later moment fits.)
local sliding, sliding_totals, sliding_commit
if algorithms ~= 'g' and string.find(algorithms, 's', 1, true) then
  function sliding(log, totals, p_arg, period_arg)
    local p, period = tonumber(p_arg), tonumber(period_arg)
    local cutoff = fmt(now - period)
    local t = redis.call('HMGET', totals, 'sum', 'seq', 'period', 'permits')
    local sum, seq = tonumber(t[1]), tonumber(t[2]) or 0
    local last = redis.call('ZRANGE', log, -1, -1, 'WITHSCORES')
    local newest = tonumber(last[2])
    local dirty = t[3] ~= period_arg or t[4] ~= p_arg
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
        sum, seq = sum + tonumber(k), max(seq, tonumber(s))
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
    local ok, wait, retry = true, 0, 0
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
        wait = due - now
      else
        ok, retry = false, due - now
      end
    end
    return ok, wait, retry, window_remaining(ok, wait, sum, p), max(0, newest + period - now),
        max(newest, now + wait) + period - now, sum, seq, newest, dirty, period, period_arg, p_arg
  end

  function sliding_totals(log, totals, v, sum, seq, until_us)
    redis.call('HSET', totals, 'sum', fmt(sum), 'seq', fmt(seq), 'period', v[12], 'permits', v[13])
    local keep = ttl(until_us - now)
    redis.call('PEXPIRE', log, keep)
    redis.call('PEXPIRE', totals, keep)
  end

  function sliding_commit(log, totals, v, due)
    local seq, until_us = v[8] + 1, max(v[9], due) + v[11]
    redis.call('ZADD', log, fmt(due), fmt(seq) .. ':' .. n)
    sliding_totals(log, totals, v, v[7] + n, seq, until_us)
    return until_us - now
  end
end

-- Fixed window. State: "end count next period permits": the end of the current window, the permits taken in it, the
-- permits reserved in the window after it, the period they were counted with and the permits per period (for
-- operators; a state written before it was stored has four fields). Windows are aligned to multiples of the period
-- on the Redis clock. A reservation may go into the next window only.
--
-- Verdict state: [7] window end, [8] count, [9] next, [10] period, [11] p, [12] the period's string, [13] p's.
-- (No tidy: a rolled-over window is rewritten on its next charge.)
local fixed, fixed_fits, fixed_commit
if algorithms ~= 'g' and string.find(algorithms, 'f', 1, true) then
  function fixed(key, p_arg, period_arg)
    local p, period = tonumber(p_arg), tonumber(period_arg)
    local wend, count, nxt = now - now % period + period, 0, 0
    local state = redis.call('GET', key)
    if state then
      local e, c, x, period0 = string.match(state, '^(%d+) (%d+) (%d+) (%d+)')
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
    local ok, wait, retry = true, 0, 0
    if count + n > p then
      if nxt + n <= p and wend - now <= maxwait then
        wait = wend - now
      else
        ok, retry = false, (nxt + n <= p) and (wend - now) or (wend + period - now)
      end
    end
    local reset_now = (nxt > 0 and wend + period or wend) - now
    return ok, wait, retry, window_remaining(ok, wait, count, p), reset_now,
        (wait > 0 and wend + period - now) or reset_now, wend, count, nxt, period, p, period_arg, p_arg
  end

  -- May the request be charged for the later moment `due` (when another limit makes it wait)?
  function fixed_fits(v, due)
    if due < v[7] then
      return v[8] + n <= v[11]
    end
    return due < v[7] + v[10] and v[9] + n <= v[11]
  end

  function fixed_commit(key, v, due)
    local wend, count, nxt, period = v[7], v[8], v[9], v[10]
    if due < wend then
      count = count + n
    else
      nxt = nxt + n
    end
    local reset = (nxt > 0 and wend + period or wend) - now
    redis.call('SET', key, string.format('%d %d %d %s %s', wend, count, nxt, v[12], v[13]), 'PX', ttl(reset))
    return reset
  end
end

-- One GCRA limit, the common case, needs no combining: its own verdict is the answer, as below with one limit.
if algorithms == 'g' then
  local ok, wait, retry, remaining, reset_now, reset_charged, rel, changed, p, period = gcra(KEYS[1], 5)
  if ok and take then
    return {1, remaining, 0, gcra_store(KEYS[1], p, 5, max(rel, wait * p) + n * period), wait, 1}
  elseif changed then
    gcra_store(KEYS[1], p, 5, rel)
  end
  if ok then
    return {1, remaining, 0, reset_charged, wait, 1}
  end
  return {0, remaining, retry, reset_now, 0, 1}
end

-- Check every limit. KEYS are consumed in order: two for a sliding log, one for the others.
local count = #algorithms
local verdicts = {}
local k = 1
for i = 1, count do
  local algorithm, a = count == 1 and algorithms or string.sub(algorithms, i, i), 3 * i + 2
  if algorithm == 'g' then
    verdicts[i] = {gcra(KEYS[k], a)}
    k = k + 1
  elseif algorithm == 's' then
    verdicts[i] = {sliding(KEYS[k], KEYS[k + 1], ARGV[a], ARGV[a + 1])}
    k = k + 2
  else
    verdicts[i] = {fixed(KEYS[k], ARGV[a], ARGV[a + 1])}
    k = k + 1
  end
end

-- All or nothing: the request is due when the last limit admits it, and every limit must accept it then.
local allowed, wait = true, 0
for i = 1, count do
  local v = verdicts[i]
  allowed = allowed and v[1]
  wait = max(wait, v[2])
end
local due = now + wait
if allowed and wait > 0 and count > 1 then
  for i = 1, count do
    local v = verdicts[i]
    if string.sub(algorithms, i, i) == 'f' and not fixed_fits(v, due) then
      allowed, v[1], v[3] = false, false, wait
    end
  end
end

-- Charge every limit, or only tidy: store a converted GCRA state, the trimmed sliding-log totals.
k = 1
for i = 1, count do
  local v, algorithm = verdicts[i], count == 1 and algorithms or string.sub(algorithms, i, i)
  if algorithm == 'g' then
    if allowed and take then
      -- Charged for the moment the permits are used (TAT' = max(TAT, due) + n*T), which may be later than their
      -- own due time when another limit makes the request wait.
      v[6] = gcra_store(KEYS[k], v[9], v[11], max(v[7], (due - now) * v[9]) + n * v[10])
    elseif v[8] then
      gcra_store(KEYS[k], v[9], v[11], v[7]) -- the converted debt, with a TTL that matches it, so it is not forgotten early
    end
    k = k + 1
  elseif algorithm == 's' then
    if allowed and take then
      v[6] = sliding_commit(KEYS[k], KEYS[k + 1], v, due)
    elseif v[10] then
      sliding_totals(KEYS[k], KEYS[k + 1], v, v[7], v[8], v[9] + v[11])
    end
    k = k + 2
  else
    if allowed and take then
      v[6] = fixed_commit(KEYS[k], v, due)
    end
    k = k + 1
  end
end
-- remaining: the fewest over the limits; retryAfter and resetAfter: the longest. The binding limit is the one with
-- the fewest remaining when allowed, and the one with the longest retry when refused.
local remaining, retry, reset, binding, worst = nil, 0, 0, 1, -1
for i = 1, count do
  local v = verdicts[i]
  v[5] = allowed and v[6] or v[5] -- this limit's reset, as the decision leaves it
  reset = max(reset, v[5])
  if remaining == nil or v[4] < remaining then
    remaining = v[4]
    if allowed then
      binding = i
    end
  elseif allowed and v[4] == remaining and v[5] > verdicts[binding][5] then
    binding = i -- as few left, but longer to recover: the limit a client most needs to hear about
  end
  if not allowed then
    retry = max(retry, v[1] and v[2] or v[3])
    if not v[1] and v[3] > worst then
      worst, binding = v[3], i
    end
  end
end
return {allowed and 1 or 0, remaining, retry, reset, allowed and wait or 0, binding, verdicts[binding][4],
    verdicts[binding][5]}
