-- Shared helper, prepended by Script to every semaphore script (docs/semaphore.md): the one place that reads and
-- repairs a semaphore's state, so that every script sees expired leases and dead waiters the same way.
--
-- The keys of a semaphore S (each script passes those it needs in KEYS):
--   S          hash    total (the configured permits), seq (arrival counter of the queue)
--   S:holders  hash    used (permits held, the sum of the entries), <owner> -> "<token> <permits> <holder>"
--   S:expiry   zset    <owner> scored by the end of its lease, in ms of Redis time
--   S:queue    zset    waiting <owner> scored by arrival (seq)
--   S:waiters  hash    <owner> -> "<deadline ms> <permits>": a waiter counts as alive until its deadline, which
--                      each of its tries pushes forward
--
-- Needs lib/notify.lua in front of it (sem_wake_head publishes).

-- Redis time in milliseconds.
local function sem_now()
  local t = redis.call('TIME')
  return t[1] * 1000 + math.floor(t[2] / 1000)
end

-- Sets a key's expiry to ttl ms unless it already lives longer: expiries only ever move forward.
local function sem_extend(key, ttl)
  if redis.call('PTTL', key) < ttl then
    redis.call('PEXPIRE', key, ttl)
  end
end

-- "<token> <permits> <holder>" -> token (string), permits (number)
local function sem_holder(entry)
  local token, permits = string.match(entry, '^(%d+) (%d+)')
  return token, tonumber(permits)
end

-- Writes the permits held after a holder left; a semaphore nobody holds keeps no holders hash at all.
local function sem_set_used(holders, used)
  if used > 0 then
    redis.call('HSET', holders, 'used', used)
  else
    redis.call('DEL', holders)
  end
end

-- Removes every holder whose lease ran out by now (their permits come back) and returns the permits still held.
-- Costs one ZRANGEBYSCORE when nothing expired.
local function sem_purge_holders(holders, expiry, now)
  local used = tonumber(redis.call('HMGET', holders, 'used')[1] or '0')
  local gone = redis.call('ZRANGEBYSCORE', expiry, '-inf', now)
  if #gone == 0 then
    return used
  end
  for i = 1, #gone do
    local entry = redis.call('HMGET', holders, gone[i])[1]
    if entry then
      local _, permits = sem_holder(entry)
      used = used - permits
      redis.call('HDEL', holders, gone[i])
    end
  end
  redis.call('ZREMRANGEBYSCORE', expiry, '-inf', now)
  sem_set_used(holders, used)
  return used
end

-- The first live waiter and the permits it waits for, or nil: waiters at the head whose deadline passed (they died
-- or stopped trying) are removed on the way. Dead waiters further back are removed when they reach the head.
local function sem_head(queue, waiters, now)
  while true do
    local head = redis.call('ZRANGE', queue, 0, 0)[1]
    if not head then
      return nil
    end
    local entry = redis.call('HMGET', waiters, head)[1]
    if entry then
      local deadline, permits = string.match(entry, '^(%d+) (%d+)')
      if tonumber(deadline) > now then
        return head, tonumber(permits)
      end
    end
    redis.call('ZREM', queue, head)
    redis.call('HDEL', waiters, head)
  end
end

-- Wakes the first live waiter, by name, if the permits it waits for are free: one message, for one waiter, in
-- whichever process it waits. Nobody behind it could take permits before it, so nobody else is woken.
local function sem_wake_head(queue, waiters, now, free, channel, sharded)
  local head, permits = sem_head(queue, waiters, now)
  if head and permits <= free then
    notify(channel, sharded, head)
  end
end
