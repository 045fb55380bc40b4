-- Undo one master's grant of a Redlock try that did not win (a split vote, a majority heard too late, a re-entry
-- without a majority): one hold count of this owner with this token goes, quietly. Unlike lock-release.lua it
-- publishes nothing: the try's rivals are retrying anyway, and a wake-up per undo would send every waiter of every
-- Baton into another round, which is how split votes feed on themselves (docs/redlock.md, "Split votes").
--
-- KEYS[1]  lock hash
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the grant
--
-- Reply: 1 if a count was taken back (the hash deleted at count 0), 0 if this master has no such hold.
local held = redis.call('HMGET', KEYS[1], 'owner', 'token', 'count')
if not owns(held[1], held[2], ARGV[1], ARGV[2]) then
  return 0
end
if held[3] == '1' then
  redis.call('DEL', KEYS[1])
else
  redis.call('HINCRBY', KEYS[1], 'count', -1)
end
return 1
