-- Read a semaphore's state at one instant (changes nothing: expired leases and dead waiters are left out, not
-- removed).
--
-- KEYS[1]  semaphore hash: total (see lib/semaphore-state.lua and docs/semaphore.md)
-- KEYS[2]  holders hash
-- KEYS[3]  lease expiry of each holder
-- KEYS[4]  queue of waiters
-- KEYS[5]  waiters hash
-- KEYS[6]  fencing counter
-- ARGV[1]  "1" to list the holders, "0" for the counts only
--
-- Reply: {total, used, waiting, lastToken, owner1, "<token> <permits> <holder>"1, remaining ms1, ...}
--        total is -1 when the semaphore is new (no total stored); used counts the permits of live leases only;
--        waiting counts live waiters (0 unless holders are listed); lastToken is 0 when none is remembered
local now = sem_now()
local total = tonumber(redis.call('HMGET', KEYS[1], 'total')[1] or '-1')
local used = tonumber(redis.call('HMGET', KEYS[2], 'used')[1] or '0')
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for i = 1, #gone do
  local entry = redis.call('HMGET', KEYS[2], gone[i])[1]
  if entry then
    local _, permits = sem_holder(entry)
    used = used - permits
  end
end
local reply = {total, used, 0, tonumber(redis.call('GET', KEYS[6]) or '0')}
if ARGV[1] == '1' then
  local queue = redis.call('ZRANGE', KEYS[4], 0, -1)
  for i = 1, #queue do
    local entry = redis.call('HMGET', KEYS[5], queue[i])[1]
    if entry and tonumber(string.match(entry, '^(%d+)')) > now then
      reply[3] = reply[3] + 1
    end
  end
  local live = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. now, '+inf', 'WITHSCORES')
  for i = 1, #live, 2 do
    local entry = redis.call('HMGET', KEYS[2], live[i])[1]
    if entry then
      reply[#reply + 1] = live[i]
      reply[#reply + 1] = entry
      reply[#reply + 1] = live[i + 1] - now
    end
  end
end
return reply
