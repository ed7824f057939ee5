import {
  compareImportance,
  importanceRank,
  isImportance,
  lowerImportance,
  type Importance,
} from "../importance";
import {
  CAP_COUNTING_STATUSES,
  AGENT_BUDGET_COUNTING_STATUSES,
  isFinalStatus,
  isMessageStatus,
} from "../message-status";
import {
  agentBudgetReason,
  complianceCapReason,
  frequencyCapReason,
  gaveUpReason,
  providerErrorsReason,
  REASON,
  reasonCode,
  rejectedReason,
  SCREENING_UNAVAILABLE,
  screeningReason,
  templateErrorReason,
} from "../reasons";

test.each([
  [frequencyCapReason(2, 86_400), "frequency_cap: 2 per P1D"],
  [frequencyCapReason(5, 604_800), "frequency_cap: 5 per P7D"],
  [frequencyCapReason(1, 3_600), "frequency_cap: 1 per PT1H"],
  [frequencyCapReason(3, 90), "frequency_cap: 3 per PT1M30S"],
  [agentBudgetReason(5, 86_400), "agent_budget: 5 per P1D"],
  [complianceCapReason(3, "Florida"), "compliance: 3 marketing texts per 24 hours (Florida)"],
  [complianceCapReason(3, "state unknown"), "compliance: 3 marketing texts per 24 hours (state unknown)"],
  [templateErrorReason("no usable locale"), "template_error: no usable locale"],
  [templateErrorReason("line 3:\n  unknown filter"), "template_error: line 3: unknown filter"],
  [templateErrorReason(""), "template_error: render failed"],
  [gaveUpReason("timeout after 3000 ms"), "gave up: timeout after 3000 ms"],
  [rejectedReason(), "rejected"],
  [rejectedReason(null), "rejected"],
  [rejectedReason("   "), "rejected"],
  [rejectedReason("wrong customer"), "rejected: wrong customer"],
  [screeningReason(["pressure", "deception"]), "screening: pressure, deception"],
  [screeningReason([SCREENING_UNAVAILABLE]), "screening: screening unavailable"],
  [
    providerErrorsReason(["email: 550 mailbox unknown", "sms: 21211 invalid number"]),
    "email: 550 mailbox unknown; sms: 21211 invalid number",
  ],
])("%s", (actual, expected) => {
  expect(actual).toBe(expected);
});

test("screeningReason needs a risk", () => {
  expect(() => screeningReason([])).toThrow("screeningReason needs at least one risk");
});

test("fixed reasons are spelled as the reason codes table", () => {
  expect(REASON).toEqual({
    duplicate: "duplicate",
    unsubscribed: "unsubscribed",
    consentExpired: "consent_expired",
    noReachableChannel: "no_reachable_channel",
    cooldown: "cooldown",
    expired: "expired",
    fatigue: "fatigue",
    agentNotAllowed: "agent_not_allowed",
    agentDeleted: "agent_deleted",
    rejected: "rejected",
    cancelledViaApi: "cancelled via API",
    broadcastCancelled: "broadcast cancelled",
  });
});

test.each<[string | null, string | null]>([
  ["frequency_cap: 2 per P1D", "frequency_cap"],
  ["compliance: 3 marketing texts per 24 hours (Florida)", "compliance"],
  ["rejected: wrong customer", "rejected"],
  ["rejected", "rejected"],
  ["gave up: boom", "gave up"],
  ["cancelled via API", "cancelled via API"],
  ["email: 550 mailbox unknown", null],
  [null, null],
])("reasonCode(%j) = %j", (reason, code) => {
  expect(reasonCode(reason)).toBe(code);
});

describe("importance", () => {
  test.each<[Importance, number]>([
    ["low", 0],
    ["normal", 1],
    ["high", 2],
    ["critical", 3],
  ])("rank of %s is %d", (level, rank) => {
    expect(importanceRank(level)).toBe(rank);
  });

  test.each<[Importance, Importance, Importance]>([
    ["critical", "high", "high"],
    ["high", "high", "high"],
    ["normal", "high", "normal"],
    ["critical", "low", "low"],
    ["low", "critical", "low"],
  ])("lowerImportance(%s, max %s) = %s", (claimed, max, result) => {
    expect(lowerImportance(claimed, max)).toBe(result);
  });

  test("compare and guard", () => {
    expect(compareImportance("low", "high")).toBeLessThan(0);
    expect(compareImportance("critical", "critical")).toBe(0);
    expect(isImportance("urgent")).toBe(false);
    expect(isImportance("high")).toBe(true);
  });
});

test("statuses", () => {
  expect(CAP_COUNTING_STATUSES).toEqual(["queued", "sending", "sent", "delivered"]);
  expect(AGENT_BUDGET_COUNTING_STATUSES).toEqual([
    "queued",
    "sending",
    "sent",
    "delivered",
    "pending_approval",
  ]);
  expect(isFinalStatus("suppressed")).toBe(true);
  expect(isFinalStatus("pending_approval")).toBe(false);
  expect(isMessageStatus("held")).toBe(false);
});
