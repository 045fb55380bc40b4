-- Shared helper of the fair lock's scripts (fair-*.lua), prepended by Script after owns, mint-token and notify: the
-- one place where the waiting queue is read, aged and handed on (docs/fair-lock.md).
--
-- The queue of a fair lock is two keys:
--   queue    sorted set: owner -> arrival number (the tail's number + 1), so ZRANGE 0 0 is the first in line
--   waiters  hash: owner -> "<deadline ms> <lease ms> <holder>": the entry is alive until the deadline (Redis time),
--            which each try of the waiter moves on; lease and holder are what a release writes when it makes the
--            waiter the owner
-- An entry whose deadline passed is dead: its waiter stopped trying (it died, or hangs) and is skipped. Dead entries
-- are removed when they reach the head, or rejoin the tail if their waiter comes back.

-- fair_now(): Redis time in milliseconds, and the TIME reply it came from, which the script hands to mint_token so
-- that it reads the clock once.
local function fair_now()
  local t = redis.call('TIME')
  return t[1] * 1000 + math.floor(t[2] / 1000), t
end

-- fair_entry(waiters, owner): deadline (number), lease (string) and holder of owner's entry, or nil.
local function fair_entry(waiters, owner)
  local e = redis.call('HGET', waiters, owner)
  if not e then
    return nil
  end
  local a = string.find(e, ' ', 1, true)
  local b = string.find(e, ' ', a + 1, true)
  return tonumber(string.sub(e, 1, a - 1)), string.sub(e, a + 1, b - 1), string.sub(e, b + 1)
end

-- fair_leave(queue, waiters, owner): removes owner's entry, if any (an empty key disappears by itself).
local function fair_leave(queue, waiters, owner)
  redis.call('ZREM', queue, owner)
  redis.call('HDEL', waiters, owner)
end

-- fair_head(queue, waiters, now): the first waiter whose entry is alive, after removing the dead ones ahead of it;
-- returns owner, deadline, lease, holder, or nil if nobody alive waits.
local function fair_head(queue, waiters, now)
  while true do
    local first = redis.call('ZRANGE', queue, 0, 0)[1]
    if not first then
      return nil
    end
    local deadline, lease, holder = fair_entry(waiters, first)
    if deadline and deadline > now then
      return first, deadline, lease, holder
    end
    fair_leave(queue, waiters, first)
  end
end

-- fair_hand_on(lock, counter, queue, waiters, retention, channel, sharded, now, time): the lock is free of its holder;
-- makes the first live waiter the owner (count 1, a fresh token, its own lease and holder) and tells that waiter
-- alone ("<owner> <token>" on the channel), or deletes the lock if nobody alive waits. now and time are what
-- fair_now() returned (so a call ends with "fair_now())"). Returns the new owner or nil.
local function fair_hand_on(lock, counter, queue, waiters, retention, channel, sharded, now, time)
  local next, _, lease, holder = fair_head(queue, waiters, now)
  if not next then
    redis.call('DEL', lock)
    return nil
  end
  fair_leave(queue, waiters, next)
  local token = mint_token(counter, retention, time)
  redis.call('HSET', lock, 'owner', next, 'count', 1, 'token', token, 'holder', holder)
  redis.call('PEXPIRE', lock, lease)
  notify(channel, sharded, next .. ' ' .. token)
  return next
end
