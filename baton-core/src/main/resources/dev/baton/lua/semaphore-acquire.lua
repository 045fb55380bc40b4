-- Acquire n permits of a semaphore with expiring permits, or join (or keep a place in) its queue of waiters.
--
-- KEYS[1]  semaphore hash: total, seq (see lib/semaphore-state.lua and docs/semaphore.md)
-- KEYS[2]  holders hash: used, <owner> -> "<token> <permits> <holder>"
-- KEYS[3]  lease expiry of each holder (sorted set, ms of Redis time)
-- KEYS[4]  queue of waiters (sorted set by arrival)
-- KEYS[5]  waiters hash: <owner> -> "<deadline ms> <permits>"
-- KEYS[6]  fencing counter: the last token issued for this name
-- ARGV[1]  owner id of the new lease: "<baton instance>:L<lease number>"
-- ARGV[2]  permits wanted, at least 1
-- ARGV[3]  lease in milliseconds
-- ARGV[4]  holder description for operators: "<instance> <pid> <host> <thread name>"
-- ARGV[5]  retention in milliseconds of the total and of the fencing counter once nobody holds a permit
-- ARGV[6]  the total to write if the semaphore is new (no state in Redis)
-- ARGV[7]  "1" if the caller will wait when it cannot have the permits now, "0" for a single try
-- ARGV[8]  how long a waiter stays in the queue without trying again, in milliseconds
-- ARGV[9]  channel of this semaphore
-- ARGV[10] "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: {1, token, total}  granted: the caller holds ARGV[2] permits until its lease runs out; total is the one in
--                    Redis, which the caller compares with the total it asked for (ARGV[6]) to warn of a mismatch
--        {0, pttl}   not now: too few permits free, or a live waiter is ahead; pttl is when the next lease runs out,
--                    if that is what the caller waits for, else 0 (no hint)
--        {-1, total} never: the semaphore has fewer permits in total than asked for (the caller leaves the queue)
--
-- Fair: permits go to the head of the queue first. A request is granted only if enough permits are free and no live
-- waiter is ahead of it, so a waiter for many permits is never overtaken by a stream of small requests, and a single
-- try does not jump the queue either. A waiter that stops trying (it died, or its process hangs) drops out once its
-- deadline passes. Expired leases are purged first, so their permits count as free.
local now = sem_now()
local want = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local retention = tonumber(ARGV[5])
local total = tonumber(redis.call('HMGET', KEYS[1], 'total')[1])
if not total then
  -- New: the total comes from the caller (Baton.semaphore(name, permits)); later callers keep it.
  total = tonumber(ARGV[6])
  redis.call('HSET', KEYS[1], 'total', ARGV[6])
  redis.call('PEXPIRE', KEYS[1], retention)
end
if want > total then
  redis.call('ZREM', KEYS[4], ARGV[1])
  redis.call('HDEL', KEYS[5], ARGV[1])
  return {-1, total}
end
local used = sem_purge_holders(KEYS[2], KEYS[3], now)
-- A waiter is in the queue exactly when it has an entry in the waiters hash (the scripts change both together). One
-- that tries is alive: its deadline moves on before dead waiters are looked for, so a waiter that was slow to come
-- back keeps its place unless another script found it overdue first.
local ttl = tonumber(ARGV[8])
local entry = string.format('%d', now + ttl) .. ' ' .. ARGV[2]
local queued = redis.call('HMGET', KEYS[5], ARGV[1])[1]
if queued then
  redis.call('HSET', KEYS[5], ARGV[1], entry)
end
local head = sem_head(KEYS[4], KEYS[5], now)
if (not head or head == ARGV[1]) and total - used >= want then
  local mine = redis.call('HMGET', KEYS[2], ARGV[1])[1]
  if mine then
    -- An earlier grant to this very owner whose reply never arrived: replaced, never counted twice.
    local _, permits = sem_holder(mine)
    used = used - permits
  end
  local token, number = mint_token(KEYS[6], ARGV[5]) -- lib/mint-token.lua, prepended when the script is loaded
  redis.call('HSET', KEYS[2], ARGV[1], token .. ' ' .. ARGV[2] .. ' ' .. ARGV[4], 'used', used + want)
  redis.call('ZADD', KEYS[3], now + lease, ARGV[1])
  sem_extend(KEYS[2], lease)
  sem_extend(KEYS[3], lease)
  -- The total outlives the last lease by the retention, so a release never makes the semaphore "new" again.
  sem_extend(KEYS[1], lease + retention)
  if head then
    redis.call('ZREM', KEYS[4], ARGV[1])
    redis.call('HDEL', KEYS[5], ARGV[1])
    -- Permits may be left for the next waiter (several came back at once): wake it, and it wakes the one after.
    sem_wake_head(KEYS[4], KEYS[5], now, total - used - want, ARGV[9], ARGV[10])
  end
  return {1, number, total}
end
if ARGV[7] == '1' then
  if not queued then
    redis.call('ZADD', KEYS[4], redis.call('HINCRBY', KEYS[1], 'seq', 1), ARGV[1])
    redis.call('HSET', KEYS[5], ARGV[1], entry)
  end
  sem_extend(KEYS[4], ttl)
  sem_extend(KEYS[5], ttl)
end
local pttl = 0
if not head or head == ARGV[1] then
  -- Only permits are missing: the earliest lease to run out may free some, unless released before.
  local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  if first[2] then
    pttl = first[2] - now
  end
end
return {0, pttl}
