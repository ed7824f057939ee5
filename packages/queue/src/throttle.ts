import type { RedisClient } from "./connection";

// A token bucket shared through Redis: one Lua script, atomic, with Redis's own clock, so many
// processes together stay under one rate. The workers' broadcast throttle (docs/broadcasts.md
// "Throttling") and the API's per-key rate limit (docs/api.md, "Limits and defaults") both use it.
// It hands out up to the number asked for, so a caller sends what it got and asks again.
const TAKE_TOKENS = `
local key = KEYS[1]
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local idle_ms = tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', key, 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + (now - at) * rate / 1000)
local granted = math.min(want, math.floor(tokens))
tokens = tokens - granted
local wait = 0
if granted == 0 then wait = math.ceil((1 - tokens) * 1000 / rate) end
redis.call('HSET', key, 'tokens', tokens, 'at', now)
redis.call('PEXPIRE', key, math.ceil(burst * 1000 / rate) + idle_ms)
return {granted, wait}
`;

export interface TokenBucket {
  /** Tokens added a second. */
  perSecond: number;
  /** Tokens the bucket holds at most. */
  burst: number;
  /** How long the key outlives a full refill (a bucket refilled to `burst` needs no state). */
  idleMs: number;
}

/** Takes up to `want` tokens from the bucket at `key`; rejects when Redis cannot be reached. */
export async function takeTokens(
  redis: RedisClient,
  key: string,
  bucket: TokenBucket,
  want: number,
): Promise<TokenGrant> {
  const [granted, waitMs] = (await redis.eval(
    TAKE_TOKENS,
    1,
    key,
    bucket.perSecond,
    bucket.burst,
    want,
    bucket.idleMs,
  )) as [number, number];
  return { granted, waitMs };
}

export interface TokenGrant {
  /** Tokens handed out now (0 to the number asked for). */
  granted: number;
  /** With none granted: milliseconds until the next token. */
  waitMs: number;
}

export interface SharedThrottle {
  take(want: number): Promise<TokenGrant>;
}

/**
 * A bucket of `perSecond` tokens a second holding at most one second's worth: takers busy for a
 * moment lose nothing, and no burst is larger than a second of the rate.
 */
export function sharedThrottle(redis: RedisClient, key: string, perSecond: number): SharedThrottle {
  const bucket = { perSecond, burst: Math.max(1, perSecond), idleMs: 60_000 };
  return { take: (want) => takeTokens(redis, key, bucket, want) };
}
