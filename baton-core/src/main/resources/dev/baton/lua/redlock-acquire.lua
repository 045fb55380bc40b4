-- Acquire (or re-enter) a Redlock on one of its independent masters. The lock is the plain lock's hash (released,
-- renewed, kept and inspected by the plain lock's scripts); what differs is where its fencing token comes from and
-- whether this master may take part at all. See docs/redlock.md.
--
-- KEYS[1]  lock hash: owner, count, token, holder, waiters (as for the plain lock, see docs/key-layout.md)
-- KEYS[2]  fencing counter: the highest token this master granted for the name
-- KEYS[3]  admission marker of this master (one per namespace, no expiry): the Redis time in ms from which it may
--          take part in quorums; absent when the master lost its data (or was never used)
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  holder description for operators
-- ARGV[4]  fencing counter retention in milliseconds
-- ARGV[5]  token of the hold the caller believes it has, "0" if none
-- ARGV[6]  "1" if the caller will wait when the lock is held, "0" for a single try
-- ARGV[7]  the fencing token the caller proposes for a fresh acquisition; "0" asks nothing (only the reply's time and
--          counter are wanted)
--
-- Reply: {code, a, b, time}, time being this master's clock in microseconds (TIME), from which callers calibrate
-- their proposals:
--   {1, token, holdCount, time}  granted with the proposed token (holdCount 1), or re-entered (the held token)
--   {0, pttl, counter, time, t}  held by another owner for pttl ms more, with token t (so that a caller can tell one
--                                holder of a majority from the partial grants of a split vote)
--   {-1, counter, 0, time}       free, but the proposal is not above the counter: propose higher
--   {-2, 0, 0, time}             no admission marker: this master must be admitted first (redlock-admit.lua)
--   {-3, ms, 0, time}            admitted only in ms: it came back empty and sits out the longest lease
--
-- The token is the caller's proposal, not a value minted here, so that every master of a quorum stores the same
-- token (release, renewal and re-entry check owner and token on each of them), and a master grants only a proposal
-- above every token it granted before. Two quorums share a master, so a later quorum's token exceeds every earlier
-- one while the masters keep their data: the argument is in docs/redlock.md.
local time = redis.call('TIME')
local micros = time[1] * 1000000 + time[2]
local admitted = redis.call('GET', KEYS[3])
if not admitted then
  return {-2, 0, 0, micros}
end
local wait = admitted - math.floor(micros / 1000)
if wait > 0 then
  return {-3, wait, 0, micros}
end
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'waiters')
if owns(held[1], held[2], ARGV[1], ARGV[5]) then
  return {1, tonumber(held[2]), reenter(KEYS[1], ARGV[2]), micros} -- lib/reenter.lua
end
local last = redis.call('GET', KEYS[2])
last = last and tonumber(last) or 0
if held[1] and held[1] ~= ARGV[1] then
  if ARGV[6] == '1' and not held[3] then
    redis.call('HSET', KEYS[1], 'waiters', 1)
  end
  return {0, redis.call('PTTL', KEYS[1]), last, micros, tonumber(held[2])}
end
-- Free, or ours with another token (an acquisition whose reply was lost): a fresh acquisition replaces it.
if not redlock_grant(KEYS[1], KEYS[2], last, ARGV[7], ARGV[1], ARGV[2], ARGV[3], ARGV[4]) then -- lib/redlock-grant.lua
  return {-1, last, 0, micros}
end
return {1, tonumber(ARGV[7]), 1, micros}
