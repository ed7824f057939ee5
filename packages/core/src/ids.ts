import { randomBytes } from "node:crypto";

// Prefixed, sortable, opaque ids (docs/api.md, "Request rules"): `<prefix>_<ULID>`. Monotonic within
// one process so ids minted in the same millisecond still sort in creation order.

export const ID_PREFIX = {
  event: "evt",
  message: "msg",
  digest: "dig",
  approval: "apr",
  broadcast: "brd",
  apiKey: "key",
  recipient: "rcp",
  attempt: "att",
  ledger: "cns",
  callback: "cbk",
  inbound: "inb",
  reviewLink: "rvl",
  sessionGrant: "sgr",
  inboxItem: "itm",
  webhook: "whk",
  webhookDelivery: "whd",
  webhookEvent: "whe",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
let lastTime = -1;
let lastRandom: Uint8Array = new Uint8Array(10);

function encodeTime(ms: number): string {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/** 80 random bits -> 16 base32 characters (exported for its test). */
export function encodeRandom(bytes: Uint8Array): string {
  // Two 40-bit halves, each exact in a double and exactly 8 characters (40 = 8 x 5 bits), so the
  // result is that of one 80-bit number, without BigInt's allocations (this runs for every id).
  return encode40Bits(bytes, 0) + encode40Bits(bytes, 5);
}

function encode40Bits(bytes: Uint8Array, from: number): string {
  let n = 0;
  for (let i = from; i < from + 5; i++) n = n * 256 + bytes[i]!;
  let out = "";
  for (let i = 0; i < 8; i++) {
    out = CROCKFORD[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = Uint8Array.from(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 255) {
      next[i]!++;
      return next;
    }
    next[i] = 0;
  }
  return next;
}

export function ulid(now: number = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = increment(lastRandom);
    now = lastTime;
  } else {
    lastTime = now;
    lastRandom = new Uint8Array(randomBytes(10));
  }
  return encodeTime(now) + encodeRandom(lastRandom);
}

export function newId(kind: IdKind, now?: number): string {
  return `${ID_PREFIX[kind]}_${ulid(now)}`;
}
