-- Acquire the read side of a read-write lock, or re-enter it (keys and fields: lib/rw-state.lua).
--
-- KEYS[1]  hash of holds
-- KEYS[2]  readers: sorted set of reader owners by lease end
-- KEYS[3]  writers: sorted set of waiting writers by intent end
-- KEYS[4]  fencing counter, shared with the write side
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  holder description for operators
-- ARGV[4]  fencing counter retention in milliseconds
-- ARGV[5]  token of the read hold the caller believes it has, "0" if none
-- ARGV[6]  "1" if the caller will wait when refused, "0" for a single try
--
-- Reply: {1, token, holdCount}  acquired (holdCount 1, a token of its own) or re-entered (same token)
--        {0, pttl}              refused: another owner holds the write side (pttl: until its lease ends), or writers
--                               wait for it (pttl: until their intents lapse unless renewed)
--
-- A reader is admitted while no other owner holds the write side and no writer waits: once a writer waits, new
-- readers queue behind it, so a stream of readers cannot starve it. Two exceptions, both of which would otherwise
-- deadlock: a re-entry (the reader already holds the lock) and the writer itself (a downgrade: take the read lock,
-- then release the write lock) are admitted regardless of waiting writers. Each reader has its own lease (its score
-- in KEYS[2]) and its own fencing token.
local now = rw_now()
local writer, until_w = rw_purge(KEYS[1], KEYS[2], KEYS[3], now)
local owner = ARGV[1]
local held = redis.call('HMGET', KEYS[1], 't:' .. owner, 'waiters')
if owns(held[1] and owner, held[1], owner, ARGV[5]) then
  local count = redis.call('HINCRBY', KEYS[1], 'c:' .. owner, 1)
  -- A re-entry may lengthen the lease, never shorten what the outer hold was promised.
  redis.call('ZADD', KEYS[2], 'GT', rw_int(now + ARGV[2]), owner)
  rw_fit(KEYS[1], KEYS[2], until_w, now)
  return {1, tonumber(held[1]), count}
end
local busy_until = 0
if writer and writer ~= owner then
  busy_until = until_w
elseif not writer then
  local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
  busy_until = tonumber(last[2]) or 0
end
if busy_until > 0 then
  -- Mark the hash so that the release publishes. With no hash (nobody holds; a writer waits and will acquire), the
  -- writer's acquisition marks it instead, because it finds writers waiting.
  if ARGV[6] == '1' and not held[2] and (writer or redis.call('EXISTS', KEYS[2]) == 1) then
    redis.call('HSET', KEYS[1], 'waiters', 1)
  end
  return {0, busy_until - now}
end
local token, number = mint_token(KEYS[4], ARGV[4])
redis.call('HSET', KEYS[1], 'c:' .. owner, 1, 't:' .. owner, token, 'h:' .. owner, ARGV[3])
redis.call('ZADD', KEYS[2], rw_int(now + ARGV[2]), owner)
rw_fit(KEYS[1], KEYS[2], until_w, now)
return {1, number, 1}
