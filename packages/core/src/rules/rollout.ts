import { createHash } from "node:crypto";

// docs/events.md, "Rules": first 4 bytes of SHA-256(`<rule key>:<external_id>`), unsigned
// big-endian, mod 100. Stable per (rule, person), so raising the percent only adds people.
export function rolloutBucket(ruleKey: string, externalId: string): number {
  const digest = createHash("sha256").update(`${ruleKey}:${externalId}`, "utf8").digest();
  return digest.readUInt32BE(0) % 100;
}

export function isInRollout(
  ruleKey: string,
  externalId: string,
  rolloutPercent: number | null | undefined,
): boolean {
  const percent = rolloutPercent ?? 100;
  if (percent >= 100) return true;
  if (percent <= 0) return false;
  return rolloutBucket(ruleKey, externalId) < percent;
}
