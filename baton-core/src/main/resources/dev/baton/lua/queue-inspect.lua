-- Read the queue of a fair lock or of a semaphore, in order, for operators (BatonAdmin.queue, `baton inspect`).
-- Reads only: waiters whose place ran out are left out, not removed (the next acquisition or release removes them).
--
-- KEYS[1]  queue: sorted set owner -> arrival number
-- KEYS[2]  waiters: hash owner -> "<deadline ms> <lease ms> <holder>" (fair lock) or
--          "<deadline ms> <permits> <lease ms> <holder>" (semaphore)
-- ARGV[1]  "f" for a fair lock's entries, "s" for a semaphore's
-- ARGV[2]  the most waiters to read
--
-- Reply: {owner, permits, place left ms, holder} per live waiter, first in line first
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
local owners = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
if #owners == 0 then
  return {}
end
local entries = redis.call('HMGET', KEYS[2], unpack(owners))
local out = {}
for i = 1, #owners do
  local e = entries[i]
  if e then
    local deadline, permits, holder
    if ARGV[1] == 's' then
      deadline, permits, holder = string.match(e, '^(%d+) (%d+) %d+ (.*)$')
    else
      deadline, holder = string.match(e, '^(%d+) %d+ (.*)$')
      permits = '1'
    end
    if deadline and tonumber(deadline) > now then
      out[#out + 1] = {owners[i], tonumber(permits), tonumber(deadline) - now, holder}
    end
  end
end
return out
