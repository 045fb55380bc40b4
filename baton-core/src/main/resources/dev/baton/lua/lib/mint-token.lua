-- Shared helper, prepended by Script to every script that issues fencing tokens: the one place where the fencing
-- invariant lives (docs/fencing-tokens.md).
--
-- mint_token(counter, retention): the next fencing token of a name, as a string, stored in its counter key.
--   A token is max(last + 1, Redis time in microseconds), so the counter may expire once the name is unused (after
--   `retention` ms): a later token still exceeds every earlier one as long as the server clock has not stepped back
--   by more than the retention. One SET ... GET in the usual case stores the clock and reads the previous token at
--   once. Formatted with %.0f because Lua 5.1 would print large numbers in exponent notation.
local function mint_token(counter, retention)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
  local token = string.format('%.0f', now)
  local last = tonumber(redis.call('SET', counter, token, 'PX', retention, 'GET') or '0')
  if last >= now then
    token = string.format('%.0f', last + 1)
    redis.call('SET', counter, token, 'PX', retention)
  end
  return token
end

