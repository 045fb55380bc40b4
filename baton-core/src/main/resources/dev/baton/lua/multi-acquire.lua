-- Acquire several plain locks in one step, for a multi-lock (docs/multi-lock.md). Every lock ends up exactly as
-- lock-acquire.lua would leave it (its own hash, hold count, lease and fencing token), so the plain release, renew,
-- inspect and handoff scripts serve each of them, and a multi-lock on {a, b} excludes a plain lock("a") holder.
--
-- KEYS[2i-1]  lock hash of the i-th lock, in the multi-lock's canonical order (see docs/key-layout.md)
-- KEYS[2i]    fencing counter of the i-th lock
--             (on a Redis Cluster all keys of one call are in one hash slot; the caller splits by slot)
-- ARGV[1]     owner id
-- ARGV[2]     lease in milliseconds
-- ARGV[3]     holder description for operators
-- ARGV[4]     fencing counter retention in milliseconds
-- ARGV[5]     "1": all or nothing (a single try); "0": take the free locks before the first busy one, for a caller
--             that will wait for that one next (ordered acquisition; see docs/multi-lock.md)
-- ARGV[5+i]   token of the hold the caller already has on the i-th lock and re-enters, "0" if none
--
-- Reply: {n, pttl, token_1, count_1, ..., token_n, count_n}
--   n        how many locks, counted from the first, the caller holds now; n = #KEYS / 2 means all of them. With
--            ARGV[5] = "1", n is 0 or all.
--   pttl     when n < #KEYS / 2: the remaining lease in ms of lock n + 1, which another owner holds; otherwise 0
--   token_i  the fencing token of lock i: newly minted, or the token of the hold re-entered
--   count_i  the hold count of lock i: 1 for a fresh acquisition, more for a re-entry
--
-- A lock is busy when its hash names another owner, or when it is free but kept for another owner's live claim
-- (a plain-lock waiter past its fairness threshold: see "Bounded waits under contention" in docs/lock-protocol.md). A hash of this owner whose token the caller does not know (a
-- reply lost to a timeout) is replaced by a fresh acquisition, as lock-acquire.lua does. No 'waiters' mark is
-- written: a caller that waits for the busy lock does so with lock-acquire.lua next, which marks it.
local locks = #KEYS / 2
local owner = ARGV[1]
local reentered = {}
local claimed = {}
local free = locks
local busy_pttl = nil
local now = nil
for i = 1, locks do
  local held = redis.call('HMGET', KEYS[2 * i - 1], 'owner', 'token', 'waiters', 'next', 'next_until')
  if owns(held[1], held[2], owner, ARGV[5 + i]) then
    reentered[i] = held[2]
  elseif held[1] and held[1] ~= owner then
    free = i - 1
    break
  elseif held[3] == '2' and held[4] then
    -- A free lock kept for a plain-lock waiter that has waited past its fairness threshold (lock-acquire.lua): while
    -- that claim is live, it is busy for everyone else; the claimant's own claim is cleared when it takes the lock.
    if not now then
      local time = redis.call('TIME')
      now = time[1] * 1000 + math.floor(time[2] / 1000)
    end
    local left = (tonumber(held[5]) or 0) - now
    if held[4] ~= owner and left > 0 and not held[1] then
      free = i - 1
      busy_pttl = left
      break
    end
    claimed[i] = true
  end
end
local function pttl_of_busy()
  return busy_pttl or redis.call('PTTL', KEYS[2 * free + 1])
end
if free < locks and ARGV[5] == '1' then
  return {0, pttl_of_busy()}
end
local lease = tonumber(ARGV[2])
local reply = {free, 0}
for i = 1, free do
  local key = KEYS[2 * i - 1]
  if reentered[i] then
    reply[2 * i + 1] = tonumber(reentered[i])
    reply[2 * i + 2] = reenter(key, lease) -- lib/reenter.lua
  else
    local token, number = mint_token(KEYS[2 * i], ARGV[4]) -- lib/mint-token.lua, prepended when loaded
    if claimed[i] then
      -- Our own claim, or one that ran out: the grant clears it, as lock-acquire.lua's does; others may still wait.
      redis.call('DEL', key)
      redis.call('HSET', key, 'waiters', 1)
    end
    redis.call('HSET', key, 'owner', owner, 'count', 1, 'token', token, 'holder', ARGV[3])
    redis.call('PEXPIRE', key, lease)
    reply[2 * i + 1] = number
    reply[2 * i + 2] = 1
  end
end
if free < locks then
  reply[2] = pttl_of_busy()
end
return reply
