-- Acquire a reentrant lock, or re-enter it if the caller already holds it.
--
-- KEYS[1]  lock hash: owner, count, token, holder, waiters (see docs/key-layout.md)
-- KEYS[2]  fencing counter: the last token issued for this name
-- ARGV[1]  owner id: "<baton instance>:t<thread id>" or "<baton instance>:L<lease number>"
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  holder description for operators: "<instance> <pid> <host> <thread name>"
-- ARGV[4]  fencing counter retention in milliseconds
-- ARGV[5]  token of the hold the caller believes it has, "0" if none
-- ARGV[6]  "1" if the caller will wait when the lock is held, "0" for a single try
--
-- Reply: {1, token, holdCount}  acquired (holdCount 1) or re-entered (holdCount > 1, same token)
--        {0, pttl}              held by another owner; pttl = its remaining lease in ms
--
-- A re-entry must name the token it re-enters. If the hash is ours but the caller does not know its token (an
-- acquisition whose reply was lost to a timeout), it is replaced by a fresh acquisition instead of being counted:
-- otherwise the caller's single unlock would leave a ghost hold behind.
--
-- A caller that is going to wait marks the hash ('waiters'), so that the release publishes a notification; a lock
-- nobody waits for is released without one. A hash already marked is not written again: on a busy lock most tries
-- fail, and a failed try should cost Redis only reads.
--
-- Fencing tokens come from mint_token (lib/mint-token.lua, prepended when the script is loaded).
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'waiters')
if owns(held[1], held[2], ARGV[1], ARGV[5]) then
  local count = redis.call('HINCRBY', KEYS[1], 'count', 1)
  -- A re-entry may lengthen the lease, never shorten what the outer hold was promised.
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
  end
  return {1, tonumber(held[2]), count}
end
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
