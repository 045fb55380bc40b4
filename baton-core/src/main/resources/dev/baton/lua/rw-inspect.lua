-- Read one side of a read-write lock for operators, atomically (keys and fields: lib/rw-state.lua). Writes nothing:
-- holds whose time has passed are skipped, not removed.
--
-- KEYS[1]  hash of holds
-- KEYS[2]  readers
-- KEYS[3]  fencing counter
-- ARGV[1]  "w" for the write side, "r" for the read side
--
-- Reply: {owner, count, token, holder, pttl, lastToken, holders}. For the write side, the writer; for the read side,
-- the reader whose lease ends last, and in holders the number of live readers. owner, count, token and holder are
-- nil when that side is free (holders 0, pttl -2); lastToken is nil when no token is remembered.
local now = rw_now()
local last_token = redis.call('GET', KEYS[3])
if ARGV[1] == 'w' then
  local h = redis.call('HMGET', KEYS[1], 'w', 'wc', 'wt', 'wh', 'we')
  local until_w = tonumber(h[5]) or 0
  if h[1] and until_w > now then
    return {h[1], h[2], h[3], h[4], until_w - now, last_token, 1}
  end
  return {false, false, false, false, -2, last_token, 0}
end
local n = redis.call('ZCOUNT', KEYS[2], '(' .. rw_int(now), '+inf')
if n == 0 then
  return {false, false, false, false, -2, last_token, 0}
end
local latest = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
local owner = latest[1]
local h = redis.call('HMGET', KEYS[1], 'c:' .. owner, 't:' .. owner, 'h:' .. owner)
return {owner, h[1], h[2], h[3], tonumber(latest[2]) - now, last_token, n}
