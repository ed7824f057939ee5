import { execFileSync } from "node:child_process";

// Python's zoneinfo (the tz database as CPython reads it) as the reference for wall-clock times:
// /usr/bin/python3 converts in one process per batch. Times are written "Mon 2024-06-10 07:59 EDT":
// the weekday and the zone abbreviation are checked too, so a typo in a test table cannot pass,
// and the abbreviation picks the first or second 01:30 of an autumn night.

export const PYTHON = "/usr/bin/python3";

const SCRIPT = `
import json, sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo
out = []
for r in json.load(sys.stdin):
    zone = ZoneInfo(r["zone"])
    if "wall" in r:
        day, date, clock, abbr = r["wall"].split(" ")
        found = None
        for fold in (0, 1):
            d = datetime.strptime(date + " " + clock, "%Y-%m-%d %H:%M").replace(tzinfo=zone, fold=fold)
            back = d.astimezone(timezone.utc).astimezone(zone)
            if back.tzname() == abbr and back.strftime("%a %Y-%m-%d %H:%M") == day + " " + date + " " + clock:
                found = d.astimezone(timezone.utc)
        out.append(found.strftime("%Y-%m-%dT%H:%M:%S.000Z") if found else "no such wall time: " + r["wall"])
    else:
        d = datetime.fromisoformat(r["instant"].replace("Z", "+00:00")).astimezone(zone)
        out.append(d.strftime("%a %Y-%m-%d %H:%M %Z"))
print(json.dumps(out))
`;

export type ZoneinfoQuery = { zone: string; wall: string } | { zone: string; instant: string };

/** Per query: the UTC instant (ISO) of a wall time, or the wall time of an instant. */
export function zoneinfo(queries: ZoneinfoQuery[]): string[] {
  const output = execFileSync(PYTHON, ["-c", SCRIPT], {
    input: JSON.stringify(queries),
    encoding: "utf8",
  });
  return JSON.parse(output) as string[];
}
