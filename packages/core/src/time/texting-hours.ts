// US marketing-text hours and caps (docs/texting.md "Jurisdictions") as data, plus the time
// arithmetic over them.
// Hours are recipient-local, start inclusive and end exclusive. Legal holidays are not modelled.
import { toE164 } from "../inbound/phone-number";
import type { DailyWindow } from "./quiet-hours";
import { parseTimeOfDay } from "./time-of-day";
import { addLocalDays, fromLocal, toLocal, type WeekdayNumber } from "./zoned";

export interface TextingJurisdiction {
  /** "US" (federal), "US-FL", …, or "strict" (US recipient, state unknown). */
  code: string;
  name: string;
  /** Shown in `compliance: <cap> marketing texts per 24 hours (<source>)`. */
  source: string;
  hours: DailyWindow;
  /** Sunday hours when they differ: a window, or null for "no marketing texts on Sundays". */
  sunday?: DailyWindow | null;
  /** Marketing texts allowed per rolling 24 hours, null when the jurisdiction sets none. */
  capPer24h: number | null;
}

export type UnknownStatePolicy = "strict" | "federal";

const EIGHT_TO_NINE = { start: "08:00", end: "21:00" };
const EIGHT_TO_EIGHT = { start: "08:00", end: "20:00" };
const NINE_TO_EIGHT = { start: "09:00", end: "20:00" };

export const FEDERAL_TEXTING: TextingJurisdiction = {
  code: "US",
  name: "US (federal)",
  source: "US federal",
  hours: EIGHT_TO_NINE,
  capPer24h: null,
};
export const STRICT_TEXTING: TextingJurisdiction = {
  code: "strict",
  name: "Strict (state unknown)",
  source: "state unknown",
  hours: NINE_TO_EIGHT,
  sunday: null,
  capPer24h: 3,
};

/** The state rows of docs/texting.md; states not listed follow the federal row. */
export const STATE_TEXTING: readonly TextingJurisdiction[] = [
  { code: "US-CT", name: "Connecticut", source: "Connecticut", hours: NINE_TO_EIGHT, capPer24h: null },
  { code: "US-FL", name: "Florida", source: "Florida", hours: EIGHT_TO_EIGHT, capPer24h: 3 },
  { code: "US-MD", name: "Maryland", source: "Maryland", hours: EIGHT_TO_EIGHT, capPer24h: 3 },
  { code: "US-OK", name: "Oklahoma", source: "Oklahoma", hours: EIGHT_TO_EIGHT, capPer24h: 3 },
  { code: "US-OR", name: "Oregon", source: "Oregon", hours: EIGHT_TO_EIGHT, capPer24h: 3 },
  {
    code: "US-TX",
    name: "Texas",
    source: "Texas",
    hours: { start: "09:00", end: "21:00" },
    sunday: { start: "12:00", end: "21:00" },
    capPer24h: null,
  },
  { code: "US-UT", name: "Utah", source: "Utah", hours: EIGHT_TO_NINE, sunday: null, capPer24h: null },
  { code: "US-VA", name: "Virginia", source: "Virginia", hours: EIGHT_TO_NINE, capPer24h: null },
  { code: "US-WA", name: "Washington", source: "Washington", hours: EIGHT_TO_EIGHT, capPer24h: null },
];

/**
 * The texting row for a recipient, or null when they are not a US recipient.
 * - region `US-XX`: that state's row, or the federal row for states without their own.
 * - region `US` (country only) or no region but a +1 number (in E.164, see inbound/phone-number.ts):
 *   state unknown, so `unknownState` picks the strict row or the federal one.
 * - any other region (`CA`, `DE-BY`, …): null, whatever the number says.
 */
export function resolveJurisdiction(
  region: string | null | undefined,
  phone: string | readonly string[] | null | undefined,
  unknownState: UnknownStatePolicy,
): TextingJurisdiction | null {
  const unknown = unknownState === "strict" ? STRICT_TEXTING : FEDERAL_TEXTING;
  const code = region?.trim().toUpperCase() ?? "";
  if (code !== "") {
    if (code === "US" || code === "US-") return unknown;
    if (!code.startsWith("US-")) return null;
    return STATE_TEXTING.find((row) => row.code === code) ?? FEDERAL_TEXTING;
  }
  const phones = typeof phone === "string" ? [phone] : (phone ?? []);
  return phones.some((number) => toE164(number)?.startsWith("+1")) ? unknown : null;
}

function hoursOn(jurisdiction: TextingJurisdiction, weekday: WeekdayNumber): DailyWindow | null {
  if (weekday === 0 && jurisdiction.sunday !== undefined) return jurisdiction.sunday;
  return jurisdiction.hours;
}

/** `dueAt` when it lies inside the legal hours in `zone`, else the start of the next legal window. */
export function nextTextingTime(dueAt: Date, jurisdiction: TextingJurisdiction, zone: string): Date {
  const today = toLocal(dueAt, zone);
  for (let offset = 0; offset <= 7; offset++) {
    const date = addLocalDays(today, offset);
    const hours = hoursOn(jurisdiction, date.weekday);
    if (!hours) continue;
    const opens = fromLocal(date, parseTimeOfDay(hours.start), zone);
    const closes = fromLocal(date, parseTimeOfDay(hours.end), zone);
    if (!opens || !closes) continue;
    if (dueAt.getTime() < opens.getTime()) return opens;
    if (dueAt.getTime() < closes.getTime()) return dueAt;
  }
  throw new RangeError(`no legal texting hours for ${jurisdiction.code} within a week`);
}

export function isWithinTextingHours(
  instant: Date,
  jurisdiction: TextingJurisdiction,
  zone: string,
): boolean {
  return nextTextingTime(instant, jurisdiction, zone).getTime() === instant.getTime();
}
