import {
  FEDERAL_TEXTING,
  nextTextingTime,
  resolveJurisdiction,
  STATE_TEXTING,
  STRICT_TEXTING,
  type TextingJurisdiction,
} from "../texting-hours";
import { resolveTimeZone } from "../zone";
import { zoneinfo } from "./zoneinfo-reference";

// Every jurisdiction of docs/texting.md at the edges of its window, the Sunday rules of Texas, Utah
// and the strict row, unknown states under both policies, and daylight-saving nights in New York
// and Chicago. Times are wall times in the recipient's zone; Python's zoneinfo converts them (both
// ways), so the expectations do not rest on svc's own time arithmetic.
// 2024-06-08 is a Saturday, 2024-06-09 a Sunday, 2024-06-10 a Monday.

type Row = [why: string, code: string, zone: string, due: string, expected: string];

const byCode = (code: string): TextingJurisdiction => {
  const found = [FEDERAL_TEXTING, STRICT_TEXTING, ...STATE_TEXTING].find((j) => j.code === code);
  if (!found) throw new Error(`no row ${code}`);
  return found;
};

const WINDOW_EDGES: Row[] = [
  [
    "US (federal): 07:59 waits for 08:00",
    "US",
    "America/New_York",
    "Mon 2024-06-10 07:59 EDT",
    "Mon 2024-06-10 08:00 EDT",
  ],
  [
    "US (federal): 08:00 is legal",
    "US",
    "America/New_York",
    "Mon 2024-06-10 08:00 EDT",
    "Mon 2024-06-10 08:00 EDT",
  ],
  [
    "US (federal): 20:59 is legal",
    "US",
    "America/New_York",
    "Mon 2024-06-10 20:59 EDT",
    "Mon 2024-06-10 20:59 EDT",
  ],
  [
    "US (federal): 21:00 is closed, next day 08:00",
    "US",
    "America/New_York",
    "Mon 2024-06-10 21:00 EDT",
    "Tue 2024-06-11 08:00 EDT",
  ],
  [
    "Connecticut: 08:59 waits for 09:00",
    "US-CT",
    "America/New_York",
    "Mon 2024-06-10 08:59 EDT",
    "Mon 2024-06-10 09:00 EDT",
  ],
  [
    "Connecticut: 09:00 is legal",
    "US-CT",
    "America/New_York",
    "Mon 2024-06-10 09:00 EDT",
    "Mon 2024-06-10 09:00 EDT",
  ],
  [
    "Connecticut: 19:59 is legal",
    "US-CT",
    "America/New_York",
    "Mon 2024-06-10 19:59 EDT",
    "Mon 2024-06-10 19:59 EDT",
  ],
  [
    "Connecticut: 20:00 is closed, next day 09:00",
    "US-CT",
    "America/New_York",
    "Mon 2024-06-10 20:00 EDT",
    "Tue 2024-06-11 09:00 EDT",
  ],
  [
    "Florida: 07:59 waits for 08:00",
    "US-FL",
    "America/New_York",
    "Mon 2024-06-10 07:59 EDT",
    "Mon 2024-06-10 08:00 EDT",
  ],
  [
    "Florida: 08:00 is legal",
    "US-FL",
    "America/New_York",
    "Mon 2024-06-10 08:00 EDT",
    "Mon 2024-06-10 08:00 EDT",
  ],
  [
    "Florida: 19:59 is legal",
    "US-FL",
    "America/New_York",
    "Mon 2024-06-10 19:59 EDT",
    "Mon 2024-06-10 19:59 EDT",
  ],
  [
    "Florida: 20:00 is closed, next day 08:00",
    "US-FL",
    "America/New_York",
    "Mon 2024-06-10 20:00 EDT",
    "Tue 2024-06-11 08:00 EDT",
  ],
  [
    "Maryland: 07:59 waits for 08:00",
    "US-MD",
    "America/New_York",
    "Mon 2024-06-10 07:59 EDT",
    "Mon 2024-06-10 08:00 EDT",
  ],
  [
    "Maryland: 08:00 is legal",
    "US-MD",
    "America/New_York",
    "Mon 2024-06-10 08:00 EDT",
    "Mon 2024-06-10 08:00 EDT",
  ],
  [
    "Maryland: 19:59 is legal",
    "US-MD",
    "America/New_York",
    "Mon 2024-06-10 19:59 EDT",
    "Mon 2024-06-10 19:59 EDT",
  ],
  [
    "Maryland: 20:00 is closed, next day 08:00",
    "US-MD",
    "America/New_York",
    "Mon 2024-06-10 20:00 EDT",
    "Tue 2024-06-11 08:00 EDT",
  ],
  [
    "Oklahoma: 07:59 waits for 08:00",
    "US-OK",
    "America/Chicago",
    "Mon 2024-06-10 07:59 CDT",
    "Mon 2024-06-10 08:00 CDT",
  ],
  [
    "Oklahoma: 08:00 is legal",
    "US-OK",
    "America/Chicago",
    "Mon 2024-06-10 08:00 CDT",
    "Mon 2024-06-10 08:00 CDT",
  ],
  [
    "Oklahoma: 19:59 is legal",
    "US-OK",
    "America/Chicago",
    "Mon 2024-06-10 19:59 CDT",
    "Mon 2024-06-10 19:59 CDT",
  ],
  [
    "Oklahoma: 20:00 is closed, next day 08:00",
    "US-OK",
    "America/Chicago",
    "Mon 2024-06-10 20:00 CDT",
    "Tue 2024-06-11 08:00 CDT",
  ],
  [
    "Oregon: 07:59 waits for 08:00",
    "US-OR",
    "America/Los_Angeles",
    "Mon 2024-06-10 07:59 PDT",
    "Mon 2024-06-10 08:00 PDT",
  ],
  [
    "Oregon: 08:00 is legal",
    "US-OR",
    "America/Los_Angeles",
    "Mon 2024-06-10 08:00 PDT",
    "Mon 2024-06-10 08:00 PDT",
  ],
  [
    "Oregon: 19:59 is legal",
    "US-OR",
    "America/Los_Angeles",
    "Mon 2024-06-10 19:59 PDT",
    "Mon 2024-06-10 19:59 PDT",
  ],
  [
    "Oregon: 20:00 is closed, next day 08:00",
    "US-OR",
    "America/Los_Angeles",
    "Mon 2024-06-10 20:00 PDT",
    "Tue 2024-06-11 08:00 PDT",
  ],
  [
    "Texas: 08:59 waits for 09:00",
    "US-TX",
    "America/Chicago",
    "Mon 2024-06-10 08:59 CDT",
    "Mon 2024-06-10 09:00 CDT",
  ],
  [
    "Texas: 09:00 is legal",
    "US-TX",
    "America/Chicago",
    "Mon 2024-06-10 09:00 CDT",
    "Mon 2024-06-10 09:00 CDT",
  ],
  [
    "Texas: 20:59 is legal",
    "US-TX",
    "America/Chicago",
    "Mon 2024-06-10 20:59 CDT",
    "Mon 2024-06-10 20:59 CDT",
  ],
  [
    "Texas: 21:00 is closed, next day 09:00",
    "US-TX",
    "America/Chicago",
    "Mon 2024-06-10 21:00 CDT",
    "Tue 2024-06-11 09:00 CDT",
  ],
  [
    "Utah: 07:59 waits for 08:00",
    "US-UT",
    "America/Denver",
    "Mon 2024-06-10 07:59 MDT",
    "Mon 2024-06-10 08:00 MDT",
  ],
  ["Utah: 08:00 is legal", "US-UT", "America/Denver", "Mon 2024-06-10 08:00 MDT", "Mon 2024-06-10 08:00 MDT"],
  ["Utah: 20:59 is legal", "US-UT", "America/Denver", "Mon 2024-06-10 20:59 MDT", "Mon 2024-06-10 20:59 MDT"],
  [
    "Utah: 21:00 is closed, next day 08:00",
    "US-UT",
    "America/Denver",
    "Mon 2024-06-10 21:00 MDT",
    "Tue 2024-06-11 08:00 MDT",
  ],
  [
    "Virginia: 07:59 waits for 08:00",
    "US-VA",
    "America/New_York",
    "Mon 2024-06-10 07:59 EDT",
    "Mon 2024-06-10 08:00 EDT",
  ],
  [
    "Virginia: 08:00 is legal",
    "US-VA",
    "America/New_York",
    "Mon 2024-06-10 08:00 EDT",
    "Mon 2024-06-10 08:00 EDT",
  ],
  [
    "Virginia: 20:59 is legal",
    "US-VA",
    "America/New_York",
    "Mon 2024-06-10 20:59 EDT",
    "Mon 2024-06-10 20:59 EDT",
  ],
  [
    "Virginia: 21:00 is closed, next day 08:00",
    "US-VA",
    "America/New_York",
    "Mon 2024-06-10 21:00 EDT",
    "Tue 2024-06-11 08:00 EDT",
  ],
  [
    "Washington: 07:59 waits for 08:00",
    "US-WA",
    "America/Los_Angeles",
    "Mon 2024-06-10 07:59 PDT",
    "Mon 2024-06-10 08:00 PDT",
  ],
  [
    "Washington: 08:00 is legal",
    "US-WA",
    "America/Los_Angeles",
    "Mon 2024-06-10 08:00 PDT",
    "Mon 2024-06-10 08:00 PDT",
  ],
  [
    "Washington: 19:59 is legal",
    "US-WA",
    "America/Los_Angeles",
    "Mon 2024-06-10 19:59 PDT",
    "Mon 2024-06-10 19:59 PDT",
  ],
  [
    "Washington: 20:00 is closed, next day 08:00",
    "US-WA",
    "America/Los_Angeles",
    "Mon 2024-06-10 20:00 PDT",
    "Tue 2024-06-11 08:00 PDT",
  ],
  [
    "Strict (state unknown): 08:59 waits for 09:00",
    "strict",
    "America/Chicago",
    "Mon 2024-06-10 08:59 CDT",
    "Mon 2024-06-10 09:00 CDT",
  ],
  [
    "Strict (state unknown): 09:00 is legal",
    "strict",
    "America/Chicago",
    "Mon 2024-06-10 09:00 CDT",
    "Mon 2024-06-10 09:00 CDT",
  ],
  [
    "Strict (state unknown): 19:59 is legal",
    "strict",
    "America/Chicago",
    "Mon 2024-06-10 19:59 CDT",
    "Mon 2024-06-10 19:59 CDT",
  ],
  [
    "Strict (state unknown): 20:00 is closed, next day 09:00",
    "strict",
    "America/Chicago",
    "Mon 2024-06-10 20:00 CDT",
    "Tue 2024-06-11 09:00 CDT",
  ],
];

const SUNDAYS: Row[] = [
  [
    "federal: Sundays are ordinary days",
    "US",
    "America/New_York",
    "Sun 2024-06-09 07:59 EDT",
    "Sun 2024-06-09 08:00 EDT",
  ],
  [
    "Florida: Sundays are ordinary days",
    "US-FL",
    "America/New_York",
    "Sun 2024-06-09 08:00 EDT",
    "Sun 2024-06-09 08:00 EDT",
  ],
  [
    "Texas: Saturday 08:59 waits for 09:00",
    "US-TX",
    "America/Chicago",
    "Sat 2024-06-08 08:59 CDT",
    "Sat 2024-06-08 09:00 CDT",
  ],
  [
    "Texas: Saturday 21:00 waits for Sunday noon",
    "US-TX",
    "America/Chicago",
    "Sat 2024-06-08 21:00 CDT",
    "Sun 2024-06-09 12:00 CDT",
  ],
  [
    "Texas: Sunday 09:00 is closed",
    "US-TX",
    "America/Chicago",
    "Sun 2024-06-09 09:00 CDT",
    "Sun 2024-06-09 12:00 CDT",
  ],
  [
    "Texas: Sunday 11:59 waits for 12:00",
    "US-TX",
    "America/Chicago",
    "Sun 2024-06-09 11:59 CDT",
    "Sun 2024-06-09 12:00 CDT",
  ],
  [
    "Texas: Sunday 12:00 is legal",
    "US-TX",
    "America/Chicago",
    "Sun 2024-06-09 12:00 CDT",
    "Sun 2024-06-09 12:00 CDT",
  ],
  [
    "Texas: Sunday 20:59 is legal",
    "US-TX",
    "America/Chicago",
    "Sun 2024-06-09 20:59 CDT",
    "Sun 2024-06-09 20:59 CDT",
  ],
  [
    "Texas: Sunday 21:00 waits for Monday 09:00",
    "US-TX",
    "America/Chicago",
    "Sun 2024-06-09 21:00 CDT",
    "Mon 2024-06-10 09:00 CDT",
  ],
  [
    "Utah: Saturday 20:59 is legal",
    "US-UT",
    "America/Denver",
    "Sat 2024-06-08 20:59 MDT",
    "Sat 2024-06-08 20:59 MDT",
  ],
  [
    "Utah: Saturday 21:00 waits for Monday 08:00",
    "US-UT",
    "America/Denver",
    "Sat 2024-06-08 21:00 MDT",
    "Mon 2024-06-10 08:00 MDT",
  ],
  [
    "Utah: Sunday 08:00 waits for Monday",
    "US-UT",
    "America/Denver",
    "Sun 2024-06-09 08:00 MDT",
    "Mon 2024-06-10 08:00 MDT",
  ],
  [
    "Utah: Sunday noon waits for Monday",
    "US-UT",
    "America/Denver",
    "Sun 2024-06-09 12:00 MDT",
    "Mon 2024-06-10 08:00 MDT",
  ],
  [
    "Utah: Sunday 23:59 waits for Monday",
    "US-UT",
    "America/Denver",
    "Sun 2024-06-09 23:59 MDT",
    "Mon 2024-06-10 08:00 MDT",
  ],
  [
    "strict: Saturday 19:59 is legal",
    "strict",
    "America/Chicago",
    "Sat 2024-06-08 19:59 CDT",
    "Sat 2024-06-08 19:59 CDT",
  ],
  [
    "strict: Saturday 20:00 waits for Monday 09:00",
    "strict",
    "America/Chicago",
    "Sat 2024-06-08 20:00 CDT",
    "Mon 2024-06-10 09:00 CDT",
  ],
  [
    "strict: Sunday 10:00 waits for Monday 09:00",
    "strict",
    "America/Chicago",
    "Sun 2024-06-09 10:00 CDT",
    "Mon 2024-06-10 09:00 CDT",
  ],
];

// US daylight saving 2024: clocks jump 02:00 → 03:00 on Sunday 10 March and fall back 02:00 →
// 01:00 on Sunday 3 November, in New York and in Chicago alike.
const DST_NIGHTS: Row[] = [
  [
    "New York spring: Florida Saturday 20:00 EST → Sunday 08:00 EDT",
    "US-FL",
    "America/New_York",
    "Sat 2024-03-09 20:00 EST",
    "Sun 2024-03-10 08:00 EDT",
  ],
  [
    "New York spring: 01:59 EST, just before the jump → 08:00 EDT",
    "US-FL",
    "America/New_York",
    "Sun 2024-03-10 01:59 EST",
    "Sun 2024-03-10 08:00 EDT",
  ],
  [
    "New York spring: 03:00 EDT, just after the jump → 08:00 EDT",
    "US-FL",
    "America/New_York",
    "Sun 2024-03-10 03:00 EDT",
    "Sun 2024-03-10 08:00 EDT",
  ],
  [
    "New York spring: 07:59 EDT waits one minute",
    "US",
    "America/New_York",
    "Sun 2024-03-10 07:59 EDT",
    "Sun 2024-03-10 08:00 EDT",
  ],
  [
    "New York autumn: Florida Saturday 20:30 EDT → Sunday 08:00 EST",
    "US-FL",
    "America/New_York",
    "Sat 2024-11-02 20:30 EDT",
    "Sun 2024-11-03 08:00 EST",
  ],
  [
    "New York autumn: the first 01:30 (EDT) → 08:00 EST",
    "US-FL",
    "America/New_York",
    "Sun 2024-11-03 01:30 EDT",
    "Sun 2024-11-03 08:00 EST",
  ],
  [
    "New York autumn: the second 01:30 (EST) → 08:00 EST",
    "US-FL",
    "America/New_York",
    "Sun 2024-11-03 01:30 EST",
    "Sun 2024-11-03 08:00 EST",
  ],
  [
    "New York autumn: Sunday 20:59 EST is legal (federal)",
    "US",
    "America/New_York",
    "Sun 2024-11-03 20:59 EST",
    "Sun 2024-11-03 20:59 EST",
  ],
  [
    "Chicago spring: Texas Saturday 21:30 CST → Sunday 12:00 CDT",
    "US-TX",
    "America/Chicago",
    "Sat 2024-03-09 21:30 CST",
    "Sun 2024-03-10 12:00 CDT",
  ],
  [
    "Chicago spring: Oklahoma 01:59 CST → 08:00 CDT",
    "US-OK",
    "America/Chicago",
    "Sun 2024-03-10 01:59 CST",
    "Sun 2024-03-10 08:00 CDT",
  ],
  [
    "Chicago spring: Oklahoma 03:00 CDT → 08:00 CDT",
    "US-OK",
    "America/Chicago",
    "Sun 2024-03-10 03:00 CDT",
    "Sun 2024-03-10 08:00 CDT",
  ],
  [
    "Chicago autumn: Texas Saturday 21:00 CDT → Sunday 12:00 CST",
    "US-TX",
    "America/Chicago",
    "Sat 2024-11-02 21:00 CDT",
    "Sun 2024-11-03 12:00 CST",
  ],
  [
    "Chicago autumn: Texas the first 01:30 (CDT) → 12:00 CST",
    "US-TX",
    "America/Chicago",
    "Sun 2024-11-03 01:30 CDT",
    "Sun 2024-11-03 12:00 CST",
  ],
  [
    "Chicago autumn: Oklahoma the second 01:30 (CST) → 08:00 CST",
    "US-OK",
    "America/Chicago",
    "Sun 2024-11-03 01:30 CST",
    "Sun 2024-11-03 08:00 CST",
  ],
  [
    "Chicago autumn: Oklahoma 19:59 CST is legal",
    "US-OK",
    "America/Chicago",
    "Sun 2024-11-03 19:59 CST",
    "Sun 2024-11-03 19:59 CST",
  ],
];

// A US recipient whose state is unknown (region `US`, or no region and a +1 number) follows
// compliance.unknown_state: `strict` (09:00-20:00, no Sundays) or `federal` (08:00-21:00).
type UnknownRow = [
  why: string,
  region: string | null,
  phone: string | null,
  policy: "strict" | "federal",
  due: string,
  expected: string,
];
const UNKNOWN_STATES: UnknownRow[] = [
  [
    "strict, region US: 08:30 waits for 09:00",
    "US",
    null,
    "strict",
    "Mon 2024-06-10 08:30 CDT",
    "Mon 2024-06-10 09:00 CDT",
  ],
  [
    "federal, region US: 08:30 is legal",
    "US",
    null,
    "federal",
    "Mon 2024-06-10 08:30 CDT",
    "Mon 2024-06-10 08:30 CDT",
  ],
  [
    "strict, +1 number: 20:30 waits for 09:00",
    null,
    "+1 (512) 555-0100",
    "strict",
    "Mon 2024-06-10 20:30 CDT",
    "Tue 2024-06-11 09:00 CDT",
  ],
  [
    "federal, +1 number: 20:30 is legal",
    null,
    "+15125550100",
    "federal",
    "Mon 2024-06-10 20:30 CDT",
    "Mon 2024-06-10 20:30 CDT",
  ],
  [
    "strict, +1 number: Sunday noon waits for Monday 09:00",
    null,
    "+15125550100",
    "strict",
    "Sun 2024-06-09 12:00 CDT",
    "Mon 2024-06-10 09:00 CDT",
  ],
  [
    "federal, +1 number: Sunday noon is legal",
    null,
    "0015125550100",
    "federal",
    "Sun 2024-06-09 12:00 CDT",
    "Sun 2024-06-09 12:00 CDT",
  ],
  [
    "federal, region US: 21:00 waits for 08:00",
    "US",
    null,
    "federal",
    "Mon 2024-06-10 21:00 CDT",
    "Tue 2024-06-11 08:00 CDT",
  ],
];

const ZONE = "America/Chicago";
const rows: Row[] = [...WINDOW_EDGES, ...SUNDAYS, ...DST_NIGHTS];
const walls = [
  ...rows.map(([, , zone, due]) => ({ zone, wall: due })),
  ...UNKNOWN_STATES.map(([, , , , due]) => ({ zone: ZONE, wall: due })),
];
let instants: Map<string, string>;

beforeAll(() => {
  const answers = zoneinfo(walls);
  instants = new Map(walls.map((q, i) => [`${q.zone} ${q.wall}`, answers[i]!]));
});

const instantOf = (zone: string, wall: string): Date => {
  const iso = instants.get(`${zone} ${wall}`)!;
  if (!iso.endsWith("Z")) throw new Error(iso);
  return new Date(iso);
};
const wallOf = (zone: string, instant: Date): string =>
  zoneinfo([{ zone, instant: instant.toISOString() }])[0]!;

describe.each([
  ["window edges", WINDOW_EDGES],
  ["Sundays", SUNDAYS],
  ["daylight-saving nights", DST_NIGHTS],
])("nextTextingTime: %s", (_group, table) => {
  test.each(table)("%s", (_why, code, zone, due, expected) => {
    const next = nextTextingTime(instantOf(zone, due), byCode(code), zone);
    expect(wallOf(zone, next)).toBe(expected);
  });
});

describe("unknown states", () => {
  test.each(UNKNOWN_STATES)("%s", (_why, region, phone, policy, due, expected) => {
    const jurisdiction = resolveJurisdiction(region, phone, policy);
    expect(jurisdiction?.code).toBe(policy === "strict" ? "strict" : "US");
    const next = nextTextingTime(instantOf(ZONE, due), jurisdiction!, ZONE);
    expect(wallOf(ZONE, next)).toBe(expected);
  });
});

describe("a recipient without a zone", () => {
  // The zone is policy.default_timezone (docs/texting.md "Local time").
  test.each([
    [
      "default UTC: 20:30 UTC is closed in Florida's window",
      "UTC",
      "2024-06-10T20:30:00Z",
      "2024-06-11T08:00:00.000Z",
    ],
    [
      "default New York: 20:30 UTC is 16:30 EDT, legal",
      "America/New_York",
      "2024-06-10T20:30:00Z",
      "2024-06-10T20:30:00.000Z",
    ],
  ])("%s", (_why, defaultZone, due, expected) => {
    const zone = resolveTimeZone(null, defaultZone);
    expect(nextTextingTime(new Date(due), byCode("US-FL"), zone).toISOString()).toBe(expected);
  });
});

test("every jurisdiction of the table has its four window edges", () => {
  const codes = new Set(WINDOW_EDGES.map(([, code]) => code));
  expect([...codes].sort()).toEqual(
    [FEDERAL_TEXTING, STRICT_TEXTING, ...STATE_TEXTING].map((j) => j.code).sort(),
  );
  expect(WINDOW_EDGES).toHaveLength(codes.size * 4);
});
