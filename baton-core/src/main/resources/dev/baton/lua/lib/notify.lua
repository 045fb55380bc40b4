-- Shared helper, prepended by Script to every script that wakes a lock's waiters: the one place that decides how a
-- release is announced.
--
-- notify(channel, sharded[, message]): publishes message ('released' when absent) on the lock's channel. sharded is
-- "1" on a Redis Cluster of Redis 7 or later, where Baton's waiters listen with SSUBSCRIBE on the node that owns the
-- lock's slot (the channel carries the lock's hash tag): SPUBLISH then stays on that shard instead of being
-- broadcast to every node of the cluster. Every Baton connected to the same servers makes the same choice, so a
-- publisher and its listeners always agree. 'all' wakes every local waiter (readers after a writer);
-- any other message is offered to the local waiters one by one, and each waiter's driver says through grantIn
-- whether it is for it ('<owner> <token>': a fair lock handed to that owner; 'next <owner>': a plain lock kept for
-- that owner alone; a semaphore names the waiter it wakes).
local function notify(channel, sharded, message)
  if sharded == '1' then
    redis.call('SPUBLISH', channel, message or 'released')
  else
    redis.call('PUBLISH', channel, message or 'released')
  end
end
