-- Shared helper, prepended by Script to every script that wakes a lock's waiters: the one place that decides how a
-- release is announced.
--
-- notify(channel, sharded): publishes 'released' on the lock's channel. sharded is "1" on a Redis Cluster of Redis 7
-- or later, where Baton's waiters listen with SSUBSCRIBE on the node that owns the lock's slot (the channel carries
-- the lock's hash tag): SPUBLISH then stays on that shard instead of being broadcast to every node of the cluster.
-- Every Baton connected to the same servers makes the same choice, so a publisher and its listeners always agree.
local function notify(channel, sharded)
  if sharded == '1' then
    redis.call('SPUBLISH', channel, 'released')
  else
    redis.call('PUBLISH', channel, 'released')
  end
end

-- announce(channel, sharded, message): the same, with a message of the script's choosing (a fair lock's release
-- names the waiter it handed the lock to: "<owner> <token>"; see fair-release.lua).
local function announce(channel, sharded, message)
  if sharded == '1' then
    redis.call('SPUBLISH', channel, message)
  else
    redis.call('PUBLISH', channel, message)
  end
end
