-- Shared helper of the read-write lock's scripts (rw-*.lua), prepended by Script after 'owns', 'mint-token' and
-- 'notify' where those are used. The protocol is described in docs/read-write-lock.md. Every rw script works on the
-- keys of one lock, all under the lock's hash tag {N}:
--
--   hash     <ns>:rw:{N}          the holds. The writer: 'w' owner, 'wc' count, 'wt' token, 'wh' holder description,
--                                 'we' when its lease ends (ms on the Redis clock). Each reader O: 'c:O' count,
--                                 't:O' token, 'h:O' holder description. 'waiters' once a caller that is going to wait
--                                 was refused, so that releases publish.
--   readers  <ns>:rw:{N}:readers  sorted set: reader owner -> when its lease ends (ms on the Redis clock)
--   writers  <ns>:rw:{N}:writers  sorted set: owner of a waiting writer -> when its intent lapses (ms, Redis clock)
--
-- A hold or an intent whose time has passed is gone, whether or not a script has removed it yet: rw_purge removes
-- them, and every decision is taken after it. rw_fit keeps the expiry of the hash at the end of the longest live
-- lease in it and that of the readers set at its latest reader, so a lock whose holders all crashed disappears by
-- itself; the writers set expires with its latest intent.

-- Now, in milliseconds on the Redis clock.
local function rw_now()
  local t = redis.call('TIME')
  return t[1] * 1000 + math.floor(t[2] / 1000)
end

-- A whole number as Redis arguments need it ('%d': Lua would print large numbers in exponent notation).
local function rw_int(x)
  return string.format('%d', x)
end

-- Removes the holds and intents whose time has passed; returns the live writer (its owner, or false) and when its
-- lease ends (0 if there is none).
local function rw_purge(hash, readers, writers, now)
  local w = redis.call('HMGET', hash, 'w', 'we')
  local writer, until_w = w[1], tonumber(w[2]) or 0
  if writer and until_w <= now then
    redis.call('HDEL', hash, 'w', 'wc', 'wt', 'wh', 'we')
    writer, until_w = false, 0
  end
  local cut = rw_int(now)
  local gone = redis.call('ZRANGEBYSCORE', readers, '-inf', cut)
  if #gone > 0 then
    for _, o in ipairs(gone) do
      redis.call('HDEL', hash, 'c:' .. o, 't:' .. o, 'h:' .. o)
    end
    redis.call('ZREMRANGEBYSCORE', readers, '-inf', cut)
  end
  redis.call('ZREMRANGEBYSCORE', writers, '-inf', cut)
  return writer, until_w
end

-- After holds changed: the hash expires when its longest live lease ends (the writer's, until_w, or the latest
-- reader's), the readers set with its latest reader; with no hold left, both are deleted. Returns whether anything
-- is still held.
local function rw_fit(hash, readers, until_w, now)
  local last = redis.call('ZRANGE', readers, -1, -1, 'WITHSCORES')
  local until_r = tonumber(last[2]) or 0
  local until_all = math.max(until_r, until_w)
  if until_all <= now then
    redis.call('DEL', hash, readers)
    return false
  end
  redis.call('PEXPIRE', hash, rw_int(until_all - now))
  if until_r > now then
    redis.call('PEXPIRE', readers, rw_int(until_r - now))
  end
  return true
end

-- After a hold left: wakes the waiters that can go now. While a writer holds, nobody can. While writers wait,
-- readers queue behind them, so only a writer can go, and only once no reader is left: 'w' wakes one waiting writer
-- per Baton (readers ignore it). Otherwise every waiter may go: 'all' wakes them all.
local function rw_wake(readers, writers, writer, channel, sharded)
  if writer then
    return
  end
  if redis.call('EXISTS', writers) == 1 then
    if redis.call('EXISTS', readers) == 0 then
      notify(channel, sharded, 'w')
    end
  else
    notify(channel, sharded, 'all')
  end
end
