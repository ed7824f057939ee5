import { fullFormats } from "ajv-formats/dist/formats";

// Formats the request validator checks beyond ajv-formats' own (docs/api.md "Request rules").
// `date-time`: RFC 3339 as ajv-formats checks it, and an instant from 0001-01-01 to 9999-12-31 UTC.
// Postgres has no year 0 and RFC 3339 no five-digit year, and a date the database refuses must be a
// 422, not a 500 (`0000-01-01T00:00:00Z`, or `0001-01-01T00:00:00+01:00`, which is in year 0 UTC).

const EARLIEST = Date.parse("0001-01-01T00:00:00.000Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");
const rfc3339 = fullFormats["date-time"] as { validate: (value: string) => boolean };

function isStorableDateTime(value: string): boolean {
  if (!rfc3339.validate(value)) return false;
  const at = Date.parse(value);
  return Number.isFinite(at) && at >= EARLIEST && at <= LATEST;
}

/** The `formats` option of express-openapi-validator (and of the per-item validator). */
export const REQUEST_FORMATS = {
  "date-time": { type: "string", validate: isStorableDateTime },
} as const;
