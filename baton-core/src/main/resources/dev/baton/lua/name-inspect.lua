-- Read, for operators, every kind of Baton object that lives under one name, at one instant: the plain lock, the
-- fair lock, the read-write lock, the semaphore, the count-down latch and the election (docs/key-layout.md). Writes
-- nothing: holds, leases and waiters whose time has passed are left out, not removed. All keys of one name carry the same hash tag {N}, whatever the
-- kind, so on a Cluster they sit in one slot and this one script reads them all atomically. Calls only commands of
-- the rule in docs/acl.md (TIME, HMGET, PTTL, GET, ZRANGE, ZRANGEBYSCORE).
--
-- ARGV[1]  which kinds to read, in this order, one letter each: 'L' plain lock, 'F' fair lock, 'R' read-write lock,
--          'S' semaphore, 'C' count-down latch, 'E' election (for example "LFRSCE", or "F" alone); each letter takes
--          its keys from KEYS, in turn:
--   L  lock hash, fencing counter
--   F  lock hash, fencing counter, queue (zset owner -> arrival), waiters (hash owner -> "<deadline> <lease> <holder>")
--   R  hash of holds (lib/rw-state.lua), readers (zset owner -> lease end), writers (zset owner -> intent end),
--      fencing counter
--   S  semaphore hash (total), holders (hash used, owner -> "<token> <permits> <holder>"), expiry (zset owner ->
--      lease end), queue (zset owner -> arrival), waiters (hash owner -> "<deadline> <permits>"), fencing counter
--   C  latch hash (field count; see latch-set.lua)
--   E  election hash, epoch counter (the plain lock's layout: the leader is its holder)
--
-- Reply: one entry per letter, in order: {letter, lastToken, waiting, total, holder1, holder2, ...}
--   lastToken  the last fencing token remembered for that object, "0" if none
--   waiting    live waiters that keep a place in Redis: the fair lock's queue, the semaphore's queue, the read-write
--              lock's waiting writers; always 0 for the plain lock, whose waiters keep no place in Redis
--   total      the semaphore's configured permits, -1 when none is stored; the latch's count, 0 when it has none
--              (never set, released or expired); -1 for every other kind
--   holderN    {owner, side, count, token, holder, remaining ms, permits}: side 'L', 'F', 'W' (the read-write lock's
--              writer), 'R' (one of its readers) or 'S'; count the reentrant hold count (1 for a semaphore lease);
--              holder "<instance> <pid> <host> <thread name>"; permits 1 except for a semaphore lease. The writer
--              comes before the readers; readers and semaphore leases in the order their leases run out.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local cut = string.format('%d', now)
local k = 0

local function key()
  k = k + 1
  return KEYS[k]
end

-- Live entries of a queue whose waiters hash holds "<deadline ms> ..." for each waiter.
local function live_waiters(queue, waiters)
  local n = 0
  local queued = redis.call('ZRANGE', queue, 0, -1)
  for i = 1, #queued do
    local entry = redis.call('HMGET', waiters, queued[i])[1]
    if entry and (tonumber(string.match(entry, '^(%d+)')) or 0) > now then
      n = n + 1
    end
  end
  return n
end

-- The plain lock and the fair lock: one owner, in the hash's owner/count/token/holder fields.
local function exclusive(letter, hash, counter)
  local h = redis.call('HMGET', hash, 'owner', 'count', 'token', 'holder')
  local pttl = redis.call('PTTL', hash)
  local reply = {letter, redis.call('GET', counter) or '0', 0, -1}
  if h[1] and h[2] and h[3] and h[4] then
    reply[5] = {h[1], letter, h[2], h[3], h[4], math.max(pttl, 0), 1}
  end
  return reply
end

local answers = {}
local kinds = ARGV[1]
for i = 1, #kinds do
  local letter = string.sub(kinds, i, i)
  if letter == 'L' or letter == 'E' then
    answers[#answers + 1] = exclusive(letter, key(), key())
  elseif letter == 'F' then
    local reply = exclusive('F', key(), key())
    reply[3] = live_waiters(key(), key())
    answers[#answers + 1] = reply
  elseif letter == 'R' then
    local hash, readers, writers, counter = key(), key(), key(), key()
    local reply = {'R', redis.call('GET', counter) or '0',
                   #redis.call('ZRANGEBYSCORE', writers, '(' .. cut, '+inf'), -1}
    local w = redis.call('HMGET', hash, 'w', 'wc', 'wt', 'wh', 'we')
    local until_w = tonumber(w[5]) or 0
    if w[1] and w[2] and w[3] and w[4] and until_w > now then
      reply[#reply + 1] = {w[1], 'W', w[2], w[3], w[4], until_w - now, 1}
    end
    local live = redis.call('ZRANGEBYSCORE', readers, '(' .. cut, '+inf', 'WITHSCORES')
    for j = 1, #live, 2 do
      local o = live[j]
      local r = redis.call('HMGET', hash, 'c:' .. o, 't:' .. o, 'h:' .. o)
      if r[1] and r[2] and r[3] then
        reply[#reply + 1] = {o, 'R', r[1], r[2], r[3], tonumber(live[j + 1]) - now, 1}
      end
    end
    answers[#answers + 1] = reply
  elseif letter == 'S' then
    local sem, holders, expiry, queue, waiters, counter = key(), key(), key(), key(), key(), key()
    local reply = {'S', redis.call('GET', counter) or '0', live_waiters(queue, waiters),
                   tonumber(redis.call('HMGET', sem, 'total')[1] or '-1')}
    local live = redis.call('ZRANGEBYSCORE', expiry, '(' .. cut, '+inf', 'WITHSCORES')
    for j = 1, #live, 2 do
      local entry = redis.call('HMGET', holders, live[j])[1]
      if entry then
        local token, permits, holder = string.match(entry, '^(%d+) (%d+) (.*)$')
        if token then
          reply[#reply + 1] = {live[j], 'S', '1', token, holder, tonumber(live[j + 1]) - now, tonumber(permits)}
        end
      end
    end
    answers[#answers + 1] = reply
  elseif letter == 'C' then
    -- Nobody holds or waits for a latch in Redis (its waiters only listen): only its count.
    answers[#answers + 1] = {'C', '0', 0, tonumber(redis.call('HMGET', key(), 'count')[1] or '0')}
  else
    return redis.error_reply('ERR name-inspect: unknown kind ' .. letter)
  end
end
return answers
