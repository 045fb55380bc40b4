-- Acquire a reentrant lock, or re-enter it if the caller already holds it.
--
-- KEYS[1]  lock hash: owner, count, token, holder, waiters, next, next_since, next_until (see docs/key-layout.md)
-- KEYS[2]  fencing counter: the last token issued for this name
-- ARGV[1]  owner id: "<baton instance>:t<thread id>" or "<baton instance>:L<lease number>"
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  holder description for operators: "<instance> <pid> <host> <thread name>"
-- ARGV[4]  fencing counter retention in milliseconds
-- ARGV[5]  token of the hold the caller believes it has, "0" if none
-- ARGV[6]  "1" if the caller will wait when the lock is held, "0" for a single try
-- ARGV[7]  (optional) how long the caller has waited so far, in milliseconds, when that is past its fairness
--          threshold: the caller claims precedence. Absent: no claim
-- ARGV[8]  (with ARGV[7]) how long a claim lasts unless its claimant's next try renews it, in milliseconds
-- ARGV[9]  (with ARGV[7]) release channel (pub/sub) of this lock
-- ARGV[10] (with ARGV[7]) "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: {1, token, holdCount}  acquired (holdCount 1) or re-entered (holdCount > 1, same token)
--        {0, pttl}              held by another owner (pttl = its remaining lease in ms), or free but claimed by a
--                               waiter with precedence (pttl = what is left of the claim); for a claimant, at most a
--                               third of the claim's duration, so that it renews the claim in time
--
-- A re-entry must name the token it re-enters. If the hash is ours but the caller does not know its token (an
-- acquisition whose reply was lost to a timeout), it is replaced by a fresh acquisition instead of being counted:
-- otherwise the caller's single unlock would leave a ghost hold behind.
--
-- A caller that is going to wait marks the hash ('waiters'), so that the release publishes a notification; a lock
-- nobody waits for is released without one. A hash already marked is not written again: on a busy lock most tries
-- fail, and a failed try should cost Redis only reads.
--
-- Bounded waits: a waiter past its fairness threshold writes a claim ('next' = owner, 'next_since' = when it began to
-- wait, 'next_until' = when the claim runs out, all in Redis milliseconds) and sets 'waiters' to 2, which says that
-- claim fields are there to read. While a claim is live, the lock goes to nobody else once it is free: the release
-- passes it to the claimant (lib/claim.lua), and every other caller is refused, except one that has waited longer
-- still, which takes the claim over (oldest first). The lock's grant clears the claim and, if others wait, publishes
-- 'unclaimed', which wakes one waiter in every Baton: their tries, refused while the claimant holds the lock, let the
-- longest of them claim it next, within this hold rather than at their next re-check. Unless 'waiters' is 2 or the
-- caller claims (ARGV[7]), the script takes the first branch below, the script as it was before claims existed: an
-- uncontended acquisition reads no field more (each absent field of an HMGET costs Redis a scan of the hash).
--
-- Fencing tokens come from mint_token (lib/mint-token.lua, prepended when the script is loaded).
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'waiters')
if owns(held[1], held[2], ARGV[1], ARGV[5]) then
  return {1, tonumber(held[2]), reenter(KEYS[1], ARGV[2])} -- lib/reenter.lua
end
local claiming = ARGV[7]
if not claiming and held[3] ~= '2' then
  -- No claim to make or to respect.
  if held[1] and held[1] ~= ARGV[1] then
    if ARGV[6] == '1' and not held[3] then
      redis.call('HSET', KEYS[1], 'waiters', 1)
    end
    return {0, redis.call('PTTL', KEYS[1])}
  end
  local token, number = mint_token(KEYS[2], ARGV[4])
  redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'count', 1, 'token', token, 'holder', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, number, 1}
end
local claim = held[3] == '2' and redis.call('HMGET', KEYS[1], 'next', 'next_since', 'next_until')
local claimant = claim and claim[1]
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
if claimant and claim[3] - now <= 0 then
  claimant = false -- run out: its waiter died, gave up, or stopped trying
end
local since = claiming and now - claiming
-- Whether a live claim of another waiter stands in the caller's way (the caller has not waited longer).
local yields = claimant and claimant ~= ARGV[1] and not (since and since < claim[2] - 0)
if (held[1] and held[1] ~= ARGV[1]) or (not held[1] and yields) then
  local pttl
  if held[1] then
    pttl = redis.call('PTTL', KEYS[1])
  else
    pttl = claim[3] - now
  end
  if claiming and not yields then
    -- Held (a free lock would have been granted): claim it, or renew the claim. The hash keeps the holder's lease;
    -- should it run out first, the claim goes with it, and the claimant's next try (due then) claims again.
    redis.call('HSET', KEYS[1], 'next', ARGV[1], 'next_since', since, 'next_until', now + ARGV[8], 'waiters', 2)
    local renew = math.floor(ARGV[8] / 3)
    if pttl > renew then
      pttl = renew
    end
  elseif ARGV[6] == '1' and not held[3] then
    redis.call('HSET', KEYS[1], 'waiters', 1)
  end
  return {0, pttl}
end
local token, number = mint_token(KEYS[2], ARGV[4])
if claim and not yields then
  -- The caller's claim, one it took over, or one that ran out: the grant clears it (DEL and a fresh hash, rather than
  -- HDEL, so that the lock needs no command beyond those listed in docs/acl.md). Others still wait: 'waiters' is 1.
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'waiters', 1)
  if claiming then
    notify(ARGV[9], ARGV[10], 'unclaimed') -- lib/notify.lua, prepended when the script is loaded
  end
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'count', 1, 'token', token, 'holder', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, number, 1}
