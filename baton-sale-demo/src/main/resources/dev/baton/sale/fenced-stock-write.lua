-- Writes an item's stock for the holder of the item's lock, unless a newer holder has written already: Baton's
-- fencing tokens grow with every acquisition, so a token lower than the last one accepted belongs to a holder whose
-- lease lapsed (a long GC pause, a network partition) and who must not overwrite what came after it.
--
-- KEYS[1] stock          KEYS[2] last accepted fencing token
-- KEYS[3] lowest stock   KEYS[4] purchase records
-- ARGV[1] new stock      ARGV[2] fencing token
-- ARGV[3] purchase record, or '' when the write is not a purchase
-- ARGV[4] '1' when the lowest stock starts over (an administrator set the stock), else '0'
--
-- The last token is kept for good: Baton's tokens never go back, not even after its counter of an idle lock expired
-- (a new counter starts from the Redis clock in microseconds), so a fence never has to be forgotten. Such tokens are
-- below 2^53 and compare exactly as Lua numbers.
--
-- Returns 1 when written, 0 when refused.
local last = tonumber(redis.call('GET', KEYS[2]) or '-1')
local token = tonumber(ARGV[2])
if token < last then
  return 0
end
local stock = tonumber(ARGV[1])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
local lowest = redis.call('GET', KEYS[3])
if ARGV[4] == '1' or not lowest or stock < tonumber(lowest) then
  redis.call('SET', KEYS[3], ARGV[1])
end
if ARGV[3] ~= '' then
  redis.call('RPUSH', KEYS[4], ARGV[3])
end
return 1
