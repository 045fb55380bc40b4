-- Shared helper, prepended by Script to every semaphore script (docs/semaphore.md): the one place that reads and
-- repairs a semaphore's state and hands free permits to the queue, so that every script sees expired leases and dead
-- waiters the same way.
--
-- The keys of a semaphore S (each script passes those it needs in KEYS):
--   S          hash    total (the configured permits), seq (arrival counter of the queue)
--   S:holders  hash    used (permits held, the sum of the entries), until (the horizon: S:holders and S:expiry
--                      live at least until then, ms of Redis time), <owner> -> "<token> <permits> <holder>"
--   S:expiry   zset    <owner> scored by the end of its lease, in ms of Redis time
--   S:queue    zset    waiting <owner> scored by arrival (seq)
--   S:waiters  hash    <owner> -> "<deadline ms> <permits> <lease ms> <holder>": a waiter counts as alive until its
--                      deadline, which each of its tries pushes forward; lease and holder are what a grant to it
--                      writes when permits are handed to it
--
-- Cost: what an acquisition or a release reads is a fixed set of fields (HMGET), the expired leases (ZRANGEBYSCORE
-- up to now: empty unless some ran out) and the head of the queue (ZRANGE 0 0), never every holder or waiter. Hash
-- fields are read with HMGET only (docs/acl.md grants no HGET or HEXISTS).
--
-- Needs lib/notify.lua and lib/mint-token.lua in front of it (sem_hand_on publishes and mints).

-- The TIME reply that sem_now read: sem_grant passes it to mint_token, so that a script reads the clock once (each
-- redis.call costs Redis about 4,000 instructions beyond the command; docs/benchmarks.md).
local sem_time

-- Redis time in milliseconds.
local function sem_now()
  sem_time = redis.call('TIME')
  return sem_time[1] * 1000 + math.floor(sem_time[2] / 1000)
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
local function sem_set_used(holders, st)
  if st.used > 0 then
    redis.call('HSET', holders, 'used', st.used)
  else
    redis.call('DEL', holders)
    st.horizon = 0
  end
end

-- The holders' state as one table: used, until (numbers) and mine, the entry of owner (nil if it holds nothing), read
-- with one HMGET; then every holder whose lease ran out by now is removed (their permits come back: one
-- ZRANGEBYSCORE when none did). st.used is written back only when something was removed; otherwise the caller's own
-- write carries it.
local function sem_state(holders, expiry, now, owner)
  local h = redis.call('HMGET', holders, 'used', 'until', owner)
  local st = {used = tonumber(h[1] or '0'), horizon = tonumber(h[2] or '0'), mine = h[3]}
  local gone = redis.call('ZRANGEBYSCORE', expiry, '-inf', now)
  if #gone == 0 then
    return st
  end
  for i = 1, #gone do
    local entry = redis.call('HMGET', holders, gone[i])[1]
    if entry then
      local _, permits = sem_holder(entry)
      st.used = st.used - permits
      redis.call('HDEL', holders, gone[i])
    end
    if gone[i] == owner then
      st.mine = nil
    end
  end
  redis.call('ZREMRANGEBYSCORE', expiry, '-inf', now)
  sem_set_used(holders, st)
  return st
end

-- A lease ending at now + lease is about to be written: if it ends after the horizon, moves the horizon to
-- now + 2 x lease and extends the keys: S:holders and S:expiry to the horizon, S (the total) to now + lease + the
-- retention (at least to the horizon), never shortening any of them. So the keys outlive every lease, the total
-- outlives the last lease by at least the retention less one lease, and a grant or renewal within a lease of the last
-- extension costs no PTTL or PEXPIRE at all. k: {semaphore, holders, expiry, retention}. Call after the writes (the
-- keys must exist).
local function sem_keep(k, st, now, lease)
  if now + lease <= st.horizon then
    return
  end
  st.horizon = now + 2 * lease
  redis.call('HSET', k.holders, 'until', st.horizon)
  sem_extend(k.holders, 2 * lease)
  sem_extend(k.expiry, 2 * lease)
  sem_extend(k.semaphore, lease + math.max(k.retention, lease))
end

-- Grants permits to owner for lease ms from now: a fresh fencing token, the holder entry, used, the lease end.
-- Returns the token as a string and as a number. k: {semaphore, holders, expiry, counter, retention}.
local function sem_grant(k, st, owner, permits, lease, holder, now)
  local token, number = mint_token(k.counter, k.retention, sem_time) -- lib/mint-token.lua
  st.used = st.used + permits
  redis.call('HSET', k.holders, owner, token .. ' ' .. permits .. ' ' .. holder, 'used', st.used)
  redis.call('ZADD', k.expiry, now + lease, owner)
  sem_keep(k, st, now, lease)
  return token, number
end

-- The first live waiter, with the permits it waits for, its lease and its holder description, or nil: waiters at
-- the head whose deadline passed (they died or stopped trying) are removed on the way. Dead waiters further back are
-- removed when they reach the head.
local function sem_head(queue, waiters, now)
  while true do
    local head = redis.call('ZRANGE', queue, 0, 0)[1]
    if not head then
      return nil
    end
    local entry = redis.call('HMGET', waiters, head)[1]
    if entry then
      local deadline, permits, lease, holder = string.match(entry, '^(%d+) (%d+) (%d+) (.*)$')
      if deadline and tonumber(deadline) > now then
        return head, tonumber(permits), tonumber(lease), holder
      end
    end
    redis.call('ZREM', queue, head)
    redis.call('HDEL', waiters, head)
  end
end

-- Hands free permits to the queue, in order: while the first live waiter's permits fit in what is free, grants them
-- to it (sem_grant, with its own lease and holder), removes it from the queue and publishes "<owner> <token>", which
-- its attempt takes without another round trip (except for `caller`, the owner running this script, which learns it
-- from the reply: st.granted is then its numeric token). Stops at the first waiter that does not fit, so nobody is
-- overtaken. Returns the first live waiter left (nil if none). The total is read (once) only if someone waits.
-- k: {semaphore, holders, expiry, queue, waiters, counter, retention, channel, sharded}; total may be nil.
local function sem_hand_on(k, st, now, total, caller)
  while true do
    local head, permits, lease, holder = sem_head(k.queue, k.waiters, now)
    if not head then
      return nil
    end
    if not total then
      total = tonumber(redis.call('HMGET', k.semaphore, 'total')[1] or '0')
    end
    if permits > total - st.used then
      return head
    end
    redis.call('ZREM', k.queue, head)
    redis.call('HDEL', k.waiters, head)
    local token, number = sem_grant(k, st, head, permits, lease, holder, now)
    if head == caller then
      st.granted = number
    else
      notify(k.channel, k.sharded, head .. ' ' .. token)
    end
  end
end
