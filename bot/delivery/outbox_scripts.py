"""The outbox's Lua steps. Each runs atomically in Redis; together they fence a post's lease.

A claim stores a new token ``<epoch>:<claimer>`` in the post's ``lease`` (``epoch`` counts claims).
``DELIVERED``, ``FAILED``, ``RELEASE`` and ``RENEW`` succeed only for the token stored now, so a
holder whose lease was re-claimed can neither record, fail nor revive the post. On a mismatch they
name the post's state: ``stale``, ``sent``, ``cancelled``, ``dead``, ``gone``.
"""

from __future__ import annotations

__all__ = ["APPEND", "CANCEL", "CLAIM", "DELIVERED", "FAILED", "RELEASE", "RENEW", "RETRY_DEAD", "TAKE_OVER"]

# Post hash fields: data (JSON), state (pending, leased, sent, dead, cancelled), attempts, epoch, lease
# (the current token; kept when an expired lease is put back, so its holder may still acknowledge a
# send nobody re-claimed), since (ms its current round of tries began: retried until max_age old),
# message_id, sent_at, error, permanent (1: died of a permanent error).

# KEYS: post, ready, platforms. ARGV: data, ready at (ms), id, platform, now (ms).
APPEND = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[1], 'state', 'pending', 'attempts', 0, 'since', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[4])
return 1
"""

# Shared by the steps below: is ARGV[2] the post's current token, and is the post still being sent?
_HOLDS = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'gone' end
local holds = (state == 'leased' or state == 'pending') and redis.call('HGET', KEYS[1], 'lease') == ARGV[2]
if not holds then
  if state == 'leased' or state == 'pending' then return 'stale' end
  return state
end
"""

# KEYS: ready, leased. ARGV: now (ms), lease until (ms), limit, post key prefix, claimer.
# Returns token, data, token, data, ...
CLAIM = """
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[2], id)
  local key = ARGV[4] .. id
  if redis.call('HGET', key, 'state') == 'leased' then
    redis.call('ZADD', KEYS[1], ARGV[1], id)
    redis.call('HSET', key, 'state', 'pending')
  end
end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  local key = ARGV[4] .. id
  if redis.call('HGET', key, 'state') == 'pending' then
    local token = redis.call('HINCRBY', key, 'epoch', 1) .. ':' .. ARGV[5]
    redis.call('ZADD', KEYS[2], ARGV[2], id)
    redis.call('HSET', key, 'state', 'leased', 'lease', token)
    redis.call('HINCRBY', key, 'attempts', 1)
    table.insert(out, token)
    table.insert(out, redis.call('HGET', key, 'data'))
  end
end
return out
"""

# KEYS: post, leased, ready. ARGV: id, token, message id, sent at (ISO), keep seconds.
DELIVERED = _HOLDS + """
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[1], 'state', 'sent', 'message_id', ARGV[3], 'sent_at', ARGV[4])
redis.call('HDEL', KEYS[1], 'error', 'lease')
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 'ok'
"""

# KEYS: post, leased, ready, dead. ARGV: id, token, reason, permanent (0/1), retry at (ms), now (ms),
# max age (ms). Returns the new state (pending or dead) or why the token was refused.
FAILED = _HOLDS + """
local now = tonumber(ARGV[6])
local since = tonumber(redis.call('HGET', KEYS[1], 'since') or '')
if not since then
  since = now
  redis.call('HSET', KEYS[1], 'since', now)
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[1], 'lease')
if ARGV[4] == '1' or now - since >= tonumber(ARGV[7]) then
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('ZADD', KEYS[4], now, ARGV[1])
  redis.call('HSET', KEYS[1], 'state', 'dead', 'error', ARGV[3], 'permanent', ARGV[4])
  return 'dead'
end
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
redis.call('HSET', KEYS[1], 'state', 'pending', 'error', ARGV[3])
return 'pending'
"""

# KEYS: post, leased, ready. ARGV: id, token, now (ms). Gives a leased post back unsent.
RELEASE = _HOLDS + """
if state ~= 'leased' then return 'ok' end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[1], 'state', 'pending')
redis.call('HINCRBY', KEYS[1], 'attempts', -1)
redis.call('HDEL', KEYS[1], 'lease')
return 'ok'
"""

# KEYS: post, leased. ARGV: id, token, lease until (ms). Extends a lease its holder still has.
RENEW = _HOLDS + """
if state ~= 'leased' then return 'stale' end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 'ok'
"""

# KEYS: post, ready, leased, dead. ARGV: id, keep seconds. Withdraws a post that is not sent.
CANCEL = """
local state = redis.call('HGET', KEYS[1], 'state')
if state ~= 'pending' and state ~= 'leased' and state ~= 'dead' then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('HSET', KEYS[1], 'state', 'cancelled')
redis.call('HDEL', KEYS[1], 'lease')
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS: post, ready, dead. ARGV: id, now (ms). A dead post back to ready for a new round of tries.
RETRY_DEAD = """
if redis.call('HGET', KEYS[1], 'state') ~= 'dead' then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[1], 'state', 'pending', 'attempts', 0, 'since', ARGV[2])
redis.call('HDEL', KEYS[1], 'permanent', 'lease')
return 1
"""

# KEYS: ready, leased. ARGV: now (ms), post key prefix. Every lease of a dead owner back to ready now.
TAKE_OVER = """
local ids = redis.call('ZRANGE', KEYS[2], 0, -1)
local n = 0
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[2], id)
  local key = ARGV[2] .. id
  if redis.call('HGET', key, 'state') == 'leased' then
    redis.call('ZADD', KEYS[1], ARGV[1], id)
    redis.call('HSET', key, 'state', 'pending')
    redis.call('HDEL', key, 'lease')
    n = n + 1
  end
end
return n
"""
