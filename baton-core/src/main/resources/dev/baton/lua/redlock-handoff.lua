-- Hand a Redlock from its holder to another owner of the same Baton on one of its masters, in one step: the lock is
-- never free on this master in between, so the Baton's other processes' waiters (and this Baton's next try) find it
-- held here, by one owner, instead of racing each other for it. See docs/redlock.md, "Handing over".
--
-- KEYS[1]  lock hash (the plain lock's hash, see redlock-acquire.lua)
-- KEYS[2]  fencing counter: the highest token this master granted for the name
-- ARGV[1]  current owner id
-- ARGV[2]  current owner's token
-- ARGV[3]  new owner id
-- ARGV[4]  new owner's lease in milliseconds
-- ARGV[5]  new owner's holder description
-- ARGV[6]  fencing counter retention in milliseconds
-- ARGV[7]  the fencing token the caller proposes for the new owner
--
-- Reply: {code, a, 0, time}, time being this master's clock in microseconds (TIME), as redlock-acquire.lua replies:
--   {1, token, 0, time}     handed over: the new owner holds it here (hold count 1) with the proposed token
--   {-1, counter, 0, time}  the current hold is here, but the proposal is not above the counter: nothing changed
--   {-2, 0, 0, time}        the current hold is not here (expired, never granted here, taken over): nothing changed
--
-- The Redlock's token rules are those of a grant: the new owner gets the caller's proposal, and only if it is above
-- every token this master granted, which the counter then records; so a majority of handovers is a majority of grants
-- of one token, ordered after every earlier hold by the argument in docs/redlock.md. The admission marker is not read:
-- a master that still has the current hold has kept its data since granting it. The whole hold goes (whatever count a
-- re-entry whose reply was lost left here): the caller hands over only its last hold count. The 'waiters' mark stays,
-- so the new owner's release still wakes the waiters of other processes. Nothing is published: nobody may take the
-- lock now.
local time = redis.call('TIME')
local micros = time[1] * 1000000 + time[2]
local held = redis.call('HMGET', KEYS[1], 'owner', 'token')
if not owns(held[1], held[2], ARGV[1], ARGV[2]) then
  return {-2, 0, 0, micros}
end
local last = redis.call('GET', KEYS[2])
last = last and tonumber(last) or 0
if not redlock_grant(KEYS[1], KEYS[2], last, ARGV[7], ARGV[3], ARGV[4], ARGV[5], ARGV[6]) then -- lib/redlock-grant.lua
  return {-1, last, 0, micros}
end
return {1, tonumber(ARGV[7]), 0, micros}
