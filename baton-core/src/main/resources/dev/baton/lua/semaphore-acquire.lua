-- Acquire n permits of a semaphore with expiring permits, or join (or keep a place in) its queue of waiters.
--
-- KEYS[1]  semaphore hash: total, seq (see lib/semaphore-state.lua and docs/semaphore.md)
-- KEYS[2]  holders hash: used, until, <owner> -> "<token> <permits> <holder>"
-- KEYS[3]  lease expiry of each holder (sorted set, ms of Redis time)
-- KEYS[4]  queue of waiters (sorted set by arrival)
-- KEYS[5]  waiters hash: <owner> -> "<deadline ms> <permits> <lease ms> <holder>"
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
-- Fair: permits go to the head of the queue first. Free permits are handed to the waiters at the head, in order, as
-- long as they fit (lib/semaphore-state.lua, sem_hand_on), before the caller is considered; so a request is granted
-- only if enough permits are free and no live waiter is ahead of it, a waiter for many permits is never overtaken by
-- a stream of small requests, and a single try does not jump the queue either. A waiter that stops trying (it died,
-- or its process hangs) drops out once its deadline passes. Expired leases are purged first, so their permits count
-- as free.
--
-- Claim: an owner that already holds permits was granted them by a try whose reply never came or by a handoff whose
-- message it missed: it gets that grant (same token, counted once) with its lease counted from now.
local now = sem_now()
local want = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local k = {semaphore = KEYS[1], holders = KEYS[2], expiry = KEYS[3], queue = KEYS[4], waiters = KEYS[5],
           counter = KEYS[6], retention = tonumber(ARGV[5]), channel = ARGV[9], sharded = ARGV[10]}
local total = tonumber(redis.call('HMGET', KEYS[1], 'total')[1])
if not total then
  -- New: the total comes from the caller (Baton.semaphore(name, permits)); later callers keep it.
  total = tonumber(ARGV[6])
  redis.call('HSET', KEYS[1], 'total', ARGV[6])
  redis.call('PEXPIRE', KEYS[1], k.retention)
end
if want > total then
  redis.call('ZREM', KEYS[4], ARGV[1])
  redis.call('HDEL', KEYS[5], ARGV[1])
  return {-1, total}
end
local st = sem_state(KEYS[2], KEYS[3], now, ARGV[1])
if st.mine then
  redis.call('ZADD', KEYS[3], 'GT', now + lease, ARGV[1])
  sem_keep(k, st, now, lease)
  local token = sem_holder(st.mine)
  return {1, tonumber(token), total}
end
-- A waiter is in the queue exactly when it has an entry in the waiters hash (the scripts change both together). One
-- that tries is alive: its deadline moves on before dead waiters are looked for, so a waiter that was slow to come
-- back keeps its place unless another script found it overdue first.
local ttl = tonumber(ARGV[8])
local entry
local queued = false
if ARGV[7] == '1' then
  entry = string.format('%d', now + ttl) .. ' ' .. ARGV[2] .. ' ' .. ARGV[3] .. ' ' .. ARGV[4]
  queued = redis.call('HMGET', KEYS[5], ARGV[1])[1] ~= false
  if queued then
    redis.call('HSET', KEYS[5], ARGV[1], entry)
  end
end
local head = sem_hand_on(k, st, now, total, ARGV[1])
if st.granted then
  return {1, st.granted, total}
end
if not head and total - st.used >= want then
  local _, number = sem_grant(k, st, ARGV[1], want, lease, ARGV[4], now)
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
