// Canonical JSON lives in @svc/core (the coding-agent hook derives its idempotency key with it too).
export { canonicalJson, requestHash } from "@svc/core";
