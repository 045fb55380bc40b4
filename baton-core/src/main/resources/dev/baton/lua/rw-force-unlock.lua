-- Administrative unlock of one side of a read-write lock: remove the writer, or every reader, whoever they are, and
-- wake who can go now (keys and fields: lib/rw-state.lua). The fencing counter and waiting writers' intents are kept.
--
-- KEYS[1]  hash of holds
-- KEYS[2]  readers
-- KEYS[3]  writers (waiting)
-- ARGV[1]  "w" for the write side, "r" for the read side
-- ARGV[2]  release channel (pub/sub) of this lock
-- ARGV[3]  "1" to publish on the sharded channel (SPUBLISH; see lib/notify.lua), otherwise PUBLISH
--
-- Reply: 1 if that side was held, 0 if it was not
local now = rw_now()
local writer, until_w = rw_purge(KEYS[1], KEYS[2], KEYS[3], now)
if ARGV[1] == 'w' then
  if not writer then
    return 0
  end
  redis.call('HDEL', KEYS[1], 'w', 'wc', 'wt', 'wh', 'we')
  writer, until_w = false, 0
else
  local owners = redis.call('ZRANGE', KEYS[2], 0, -1)
  if #owners == 0 then
    return 0
  end
  for _, o in ipairs(owners) do
    redis.call('HDEL', KEYS[1], 'c:' .. o, 't:' .. o, 'h:' .. o)
  end
  redis.call('DEL', KEYS[2])
end
rw_fit(KEYS[1], KEYS[2], until_w, now)
rw_wake(KEYS[2], KEYS[3], writer, ARGV[2], ARGV[3])
return 1
