-- Acquire the write side of a read-write lock, or re-enter it (keys and fields: lib/rw-state.lua).
--
-- KEYS[1]  hash of holds
-- KEYS[2]  readers: sorted set of reader owners by lease end
-- KEYS[3]  writers: sorted set of waiting writers by intent end
-- KEYS[4]  fencing counter, shared with the read side
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  holder description for operators
-- ARGV[4]  fencing counter retention in milliseconds
-- ARGV[5]  token of the write hold the caller believes it has, "0" if none
-- ARGV[6]  "1" if the caller will wait when refused, "0" for a single try
-- ARGV[7]  how long a waiting writer's intent lasts unless a later try renews it, in milliseconds
--
-- Reply: {1, token, holdCount}  acquired (holdCount 1) or re-entered (holdCount > 1, same token)
--        {0, pttl}              refused: another writer or a reader holds the lock. pttl: until the first of those
--                               leases ends, and for a caller that waits at most a third of its intent, so that it
--                               comes back (and renews the intent) before the intent lapses
--        {-1}                   refused for good: the caller holds the read side and not the write side. Waiting
--                               would wait for its own read hold forever (an upgrade), so it must not wait at all
--
-- A writer that is going to wait records its intent in KEYS[3]. While any intent is live, new readers are refused
-- (rw-read-acquire.lua), so the readers drain and the writer gets in. An intent lapses ARGV[7] after the writer's
-- last try: a writer that died while waiting holds readers up for at most that long.
local now = rw_now()
local writer, until_w = rw_purge(KEYS[1], KEYS[2], KEYS[3], now)
local owner = ARGV[1]
local held = redis.call('HMGET', KEYS[1], 'wt', 't:' .. owner, 'waiters')
if owns(writer, held[1], owner, ARGV[5]) then
  local count = redis.call('HINCRBY', KEYS[1], 'wc', 1)
  local until_new = now + ARGV[2]
  if until_new > until_w then
    redis.call('HSET', KEYS[1], 'we', rw_int(until_new))
    until_w = until_new
  end
  rw_fit(KEYS[1], KEYS[2], until_w, now)
  return {1, tonumber(held[1]), count}
end
-- Held under the caller's owner id with a token the caller does not know (an acquisition whose reply was lost): it
-- is replaced by a fresh acquisition below, as in lock-acquire.lua.
if writer ~= owner then
  if held[2] then
    return {-1}
  end
  local busy_until = 0
  if writer then
    busy_until = until_w
  else
    local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    busy_until = tonumber(first[2]) or 0
  end
  if busy_until > 0 then
    local pttl = busy_until - now
    if ARGV[6] == '1' then
      local intent = tonumber(ARGV[7])
      redis.call('ZADD', KEYS[3], rw_int(now + intent), owner)
      if redis.call('PTTL', KEYS[3]) < intent then
        redis.call('PEXPIRE', KEYS[3], ARGV[7])
      end
      if not held[3] then
        redis.call('HSET', KEYS[1], 'waiters', 1)
      end
      pttl = math.min(pttl, math.floor(intent / 3))
    end
    return {0, pttl}
  end
end
-- Writers waited (this one or others): readers may have been refused meanwhile, even while nobody held the lock, so
-- the release must publish.
local waited = redis.call('EXISTS', KEYS[3]) == 1
if waited then
  redis.call('ZREM', KEYS[3], owner)
end
local token, number = mint_token(KEYS[4], ARGV[4])
local until_new = now + ARGV[2]
redis.call('HSET', KEYS[1], 'w', owner, 'wc', 1, 'wt', token, 'wh', ARGV[3], 'we', rw_int(until_new))
if waited and not held[3] then
  redis.call('HSET', KEYS[1], 'waiters', 1)
end
rw_fit(KEYS[1], KEYS[2], until_new, now)
return {1, number, 1}
