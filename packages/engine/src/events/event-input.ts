import type { RecipientProfileInput } from "../recipients/recipient-profile";
import { validationError } from "../shared/validation";

/** An inline recipient profile sent with an event (docs/events.md, "Recipient"). */
interface InlineProfile extends RecipientProfileInput {
  external_id: string;
}

/** Body of POST /v1/events. */
export interface EventInput {
  name: string;
  recipient: string | InlineProfile;
  data?: Record<string, unknown>;
  idempotency_key?: string;
}

/** Idempotency keys are kept this long (docs/events.md, "Idempotency"). */
export const IDEMPOTENCY_RETENTION_MS = 7 * 24 * 3600 * 1000;

const RESERVED_EVENT_PREFIX = "svc.";

export function isReservedEventName(name: string): boolean {
  return name.startsWith(RESERVED_EVENT_PREFIX);
}

export function recipientExternalId(recipient: EventInput["recipient"]): string {
  return typeof recipient === "string" ? recipient : recipient.external_id;
}

/** The profile part of an inline recipient (without `external_id`), or null for a plain id. */
export function inlineProfileOf(recipient: EventInput["recipient"]): RecipientProfileInput | null {
  if (typeof recipient === "string") return null;
  const { external_id: _externalId, ...profile } = recipient;
  return profile;
}

// External ids: 1-255 characters without control characters (docs/api.md, "Request rules").
const CONTROL = /\p{Cc}/u;
function isValidExternalId(value: string): boolean {
  return value.length >= 1 && value.length <= 255 && !CONTROL.test(value);
}

/** 422 at `loc` unless `value` is a valid external id (events and the dry run alike). */
export function assertExternalId(value: string, loc: (string | number)[]): void {
  if (isValidExternalId(value)) return;
  throw validationError([
    { loc, msg: "external id must be 1-255 characters without control characters", type: "value_error" },
  ]);
}
