-- Shared helper, prepended by Script to every script that issues fencing tokens: the one place where the fencing
-- invariant lives (docs/fencing-tokens.md).
--
-- mint_token(counter, retention[, time]): the next fencing token of a name, stored in its counter key; returns it
--   twice, as the string written to Redis and as a Lua number (for the reply, which saves parsing it back). time is
--   the reply of a TIME the script made already (the fair lock reads the clock for its queue anyway): a script
--   reads the clock once, since each redis.call costs Redis about 4,000 instructions beyond the command itself.
--   A token is max(last + 1, Redis time in microseconds), so the counter may expire once the name is unused (after
--   `retention` ms): a later token still exceeds every earlier one as long as the server clock has not stepped back
--   by more than the retention. One SET ... GET in the usual case stores the clock and reads the previous token at
--   once.
--   Cost (it runs on every acquisition; counted with callgrind, docs/benchmarks.md): printed with '%d' (exact below
--   2^53, and on every 64-bit server Lua 5.1 formats it as a C long), not '%.0f', which costs twice as much; the
--   strings of TIME and of the previous token are turned into numbers by arithmetic, not by calls to tonumber.
local function mint_token(counter, retention, time)
  time = time or redis.call('TIME')
  local now = time[1] * 1000000 + time[2]
  local token = string.format('%d', now)
  local last = redis.call('SET', counter, token, 'PX', retention, 'GET')
  if last and last + 0 >= now then
    now = last + 1
    token = string.format('%d', now)
    redis.call('SET', counter, token, 'PX', retention)
  end
  return token, now
end
