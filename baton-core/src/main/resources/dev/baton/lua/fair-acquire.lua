-- Acquire a fair lock, re-enter it, claim it after a handoff, or join (or keep) a place in its queue.
--
-- KEYS[1]  lock hash: owner, count, token, holder (the plain lock's layout; see docs/key-layout.md)
-- KEYS[2]  fencing counter: the last token issued for this name
-- KEYS[3]  queue: sorted set, owner -> arrival number (lib/fair-queue.lua)
-- KEYS[4]  waiters: hash, owner -> "<deadline ms> <lease ms> <holder>"
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  holder description for operators: "<instance> <pid> <host> <thread name>"
-- ARGV[4]  fencing counter retention in milliseconds
-- ARGV[5]  token of the hold the caller believes it has, "0" if none
-- ARGV[6]  "1" if the caller will wait when it cannot have the lock now, "0" for a single try
-- ARGV[7]  entry lifetime in milliseconds: how long the caller's place is kept without another try
--
-- Reply: {1, token, holdCount}  acquired (holdCount 1), re-entered (holdCount > 1, same token), or claimed after a
--                               release handed it to the caller (holdCount 1, the token of the handoff)
--        {0, pttl, lastToken}   not now; pttl = how long to wait at most before trying again, in ms; lastToken = the
--                               last fencing token issued for the name (0 if none is remembered), so that the caller
--                               can tell a handoff message sent before this try from one sent after it
--
-- Order: the lock goes to the first live waiter. A free lock is granted to a caller only if no live waiter is ahead
-- of it, so a newcomer never overtakes the queue, a single try (tryLock()) included. A caller that waits joins the
-- tail at its first try and keeps its place by trying again before its entry's deadline (now + ARGV[7]); the reply's
-- pttl is at most a third of that lifetime, so a live waiter always comes back in time.
--
-- Claim: a release makes the first waiter the owner itself (fair-release.lua) and publishes "<owner> <token>". The
-- waiter usually takes that from the message without asking; if it asks instead (it missed the message, or its lease
-- estimate is too old), it finds itself the owner with a token it does not know, and gets the hold with a fresh lease.
local held = redis.call('HMGET', KEYS[1], 'owner', 'token')
if held[1] == ARGV[1] then
  if owns(held[1], held[2], ARGV[1], ARGV[5]) then
    return {1, tonumber(held[2]), reenter(KEYS[1], ARGV[2])} -- lib/reenter.lua
  end
  redis.call('HSET', KEYS[1], 'count', 1, 'holder', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  fair_leave(KEYS[3], KEYS[4], ARGV[1])
  return {1, tonumber(held[2]), 1}
end

local now, time = fair_now()
local head, head_deadline = fair_head(KEYS[3], KEYS[4], now)
if not held[1] and (not head or head == ARGV[1]) then
  if head then
    fair_leave(KEYS[3], KEYS[4], ARGV[1])
  end
  local token, number = mint_token(KEYS[2], ARGV[4], time)
  redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'count', 1, 'token', token, 'holder', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, number, 1}
end

local lifetime = tonumber(ARGV[7])
local pttl = math.floor(lifetime / 3)
if ARGV[6] == '1' then
  -- The head's entry was read (and found alive) by fair_head: no need to read it again.
  local deadline = head == ARGV[1] and head_deadline or fair_entry(KEYS[4], ARGV[1])
  if not deadline or deadline <= now then
    -- A first try, or a waiter whose entry died (it stayed away too long): join at the tail.
    local tail = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
    redis.call('ZADD', KEYS[3], tail[2] and tail[2] + 1 or 1, ARGV[1])
  end
  redis.call('HSET', KEYS[4], ARGV[1], (now + lifetime) .. ' ' .. ARGV[2] .. ' ' .. ARGV[3])
  -- The queue outlives every entry in it, and vanishes once nobody keeps a place. Its two keys are created together
  -- and always given the same expiry together, so the queue's PTTL stands for both (one command fewer per try).
  if redis.call('PTTL', KEYS[3]) < lifetime then
    redis.call('PEXPIRE', KEYS[3], lifetime)
    redis.call('PEXPIRE', KEYS[4], lifetime)
  end
  if not head then
    head = ARGV[1]
  end
end
if held[1] then
  if head == ARGV[1] then
    -- First in line: come back when the holder's lease runs out, in case it crashed.
    local left = redis.call('PTTL', KEYS[1])
    if left > 0 and left < pttl then
      pttl = left
    end
  end
elseif head_deadline - now + 1 < pttl then
  -- Free, but a waiter ahead of the caller has not claimed it yet: come back when its entry would die.
  pttl = head_deadline - now + 1
end
local last = redis.call('GET', KEYS[2])
return {0, pttl, last and tonumber(last) or 0}
