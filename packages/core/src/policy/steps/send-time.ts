// docs/policy.md "Send time": send_at = due time + the rule's delay, moved past quiet hours when
// the category respects them, and into US texting hours for marketing texts (docs/texting.md).
// `critical` skips the delay and quiet hours but not texting hours (they are law).
import type { DailyWindow } from "../../time/quiet-hours";
import { nextAllowedTime } from "../../time/quiet-hours";
import { nextTextingTime, type TextingJurisdiction } from "../../time/texting-hours";
import { resolveTimeZone } from "../../time/zone";
import { textingComplianceFor } from "../compliance";
import { defer, pass, type PolicyStep } from "../context";

// Quiet hours and texting hours can push each other (a custom window over Sunday noon in Texas).
// Both only move forward and repeat weekly, so a combination that allows any time at all finds
// it within eight days.
const SEARCH_MS = 8 * 86_400_000;

export const sendTime: PolicyStep = {
  name: "send_time",
  run(ctx, draft) {
    const critical = draft.importance === "critical";
    const zone = resolveTimeZone(ctx.recipient.timezone, ctx.config.defaultTimezone);
    // An approved message had its delay when it was composed; its re-check starts from dueAt.
    const delaySeconds = critical || ctx.message.approved ? 0 : (ctx.message.rule?.delaySeconds ?? 0);
    const due = new Date(draft.sendAt.getTime() + delaySeconds * 1000);
    const quiet =
      !critical && ctx.category.respectQuietHours
        ? (ctx.recipient.quietHours ?? ctx.config.quietHours)
        : null;
    // Only when the first reachable channel sends texts: a text channel further down the fallback
    // list is checked by the delivery worker when it gets there (docs/texting.md "At delivery").
    const texting = textingComplianceFor(ctx, draft.channels.slice(0, 1))?.jurisdiction ?? null;
    const at = settle(due, quiet, texting, zone);
    return at.getTime() === draft.sendAt.getTime() ? pass() : defer(at);
  },
};

function settle(
  due: Date,
  quiet: DailyWindow | null,
  texting: TextingJurisdiction | null,
  zone: string,
): Date {
  let at = due;
  while (at.getTime() - due.getTime() <= SEARCH_MS) {
    let next = quiet ? nextAllowedTime(at, quiet, zone) : at;
    if (texting) next = nextTextingTime(next, texting, zone);
    if (next.getTime() === at.getTime()) return at;
    at = next;
  }
  // Quiet hours cover every legal texting hour: the law wins over the courtesy. (Only texting
  // can get here: quiet hours alone always end within a day.)
  return texting ? nextTextingTime(due, texting, zone) : at;
}
