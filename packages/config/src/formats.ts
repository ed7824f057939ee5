// Value formats shared by the configuration sections.
import { parsePeriod } from "@svc/core";
import { z } from "zod";

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

export const clockTime = z.string().regex(HH_MM, { error: "expected a time as HH:MM (00:00 to 23:59)" });

/** True for names of the IANA time-zone database that this runtime knows (`Europe/Berlin`, `UTC`). */
export function isIanaTimeZone(zone: string): boolean {
  // Intl also accepts offsets such as "+01:00"; those are not zones and do not follow daylight saving.
  if (!/^[A-Za-z]/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const ianaTimeZone = z
  .string()
  .refine(isIanaTimeZone, { error: (issue) => `unknown IANA time zone ${JSON.stringify(issue.input)}` });

/** A URL string whose scheme is one of `protocols` (given without the colon). */
export function urlWith(...protocols: string[]) {
  const expected = protocols.map((p) => `${p}://`).join(" or ");
  return z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol.slice(0, -1));
      } catch {
        return false;
      }
    },
    { error: `expected a ${expected} URL` },
  );
}

export const httpUrl = urlWith("http", "https");

export const positiveInt = z.number().int().positive();

export const probability = z.number().min(0).max(1);

/** An ISO 8601 period of fixed-length units (`P3D`, `PT12H`) or seconds, as whole seconds (> 0). */
export const period = z.union([z.string(), z.number()]).transform((value, ctx) => {
  try {
    const seconds = parsePeriod(value);
    if (seconds > 0) return seconds;
    ctx.addIssue({ code: "custom", message: "expected a period longer than zero" });
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
  }
  return z.NEVER;
});
