-- Shared helper, prepended by Script to every script that checks who holds a lock: the one place where ownership is
-- decided. A hold is the caller's only if both the owner id and the fencing token match, so that a late or retried
-- command can never act on a newer acquisition by the same owner.
--
-- owns(held_owner, held_token, owner, token): held_* as read from the lock hash (nil when absent), the others as the
-- caller passed them (strings).
local function owns(held_owner, held_token, owner, token)
  return held_owner == owner and held_token == token
end

