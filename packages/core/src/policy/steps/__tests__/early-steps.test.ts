import { NOW, runStep, type ContextOverrides } from "../../__tests__/context-factory";
import type { StepOutcome } from "../../context";
import { consentExpiry } from "../consent-expiry";
import { duplicate } from "../duplicate";
import { importanceCeiling } from "../importance-ceiling";
import { reachability } from "../reachability";
import { unsubscribe } from "../unsubscribe";

const PASS: StepOutcome = { kind: "pass" };
const agent = {
  key: "helper",
  frequencyCaps: [],
  maxImportance: "high" as const,
  approvalTtlSeconds: 86_400,
};

describe("importance ceiling", () => {
  test.each<[string, ContextOverrides, StepOutcome]>([
    ["backend messages keep their importance", { message: { importance: "critical" } }, PASS],
    [
      "agent claim above max is lowered",
      { message: { importance: "critical", agent } },
      { kind: "change", patch: { importance: "high" } },
    ],
    ["agent claim at max stays", { message: { importance: "high", agent } }, PASS],
    [
      "agent with max low",
      { message: { importance: "normal", agent: { ...agent, maxImportance: "low" } } },
      { kind: "change", patch: { importance: "low" } },
    ],
  ])("%s", async (_why, o, outcome) => {
    expect(await runStep(importanceCeiling, o)).toEqual(outcome);
  });
});

describe("duplicate", () => {
  test.each<[string, ContextOverrides, StepOutcome]>([
    ["new message", {}, PASS],
    [
      "same key seen before",
      { message: { duplicateOf: "msg_0" } },
      { kind: "drop", status: "suppressed", reason: "duplicate" },
    ],
  ])("%s", async (_why, o, outcome) => {
    expect(await runStep(duplicate, o)).toEqual(outcome);
  });
});

describe("unsubscribe", () => {
  test.each<[string, ContextOverrides, StepOutcome]>([
    ["subscribed", { recipient: { unsubscribedCategories: ["other"] } }, PASS],
    [
      "left the category",
      { recipient: { unsubscribedCategories: ["updates"] } },
      { kind: "drop", status: "suppressed", reason: "unsubscribed" },
    ],
    [
      "category forbids unsubscribing (transactional)",
      { category: { allowUnsubscribe: false }, recipient: { unsubscribedCategories: ["updates"] } },
      PASS,
    ],
  ])("%s", async (_why, o, outcome) => {
    expect(await runStep(unsubscribe, o)).toEqual(outcome);
  });
});

describe("consent expiry", () => {
  const EXPIRED: StepOutcome = { kind: "drop", status: "suppressed", reason: "consent_expired" };
  test.each<[string, ContextOverrides, StepOutcome]>([
    ["no recorded expiry", {}, PASS],
    ["expires later", { recipient: { consentExpiresAt: { updates: new Date(NOW.getTime() + 1) } } }, PASS],
    ["expires now", { recipient: { consentExpiresAt: { updates: NOW } } }, EXPIRED],
    [
      "expired yesterday",
      { recipient: { consentExpiresAt: { updates: new Date("2024-01-14T12:00:00Z") } } },
      EXPIRED,
    ],
    [
      "another category expired",
      { recipient: { consentExpiresAt: { promo: new Date("2024-01-14T12:00:00Z") } } },
      PASS,
    ],
    ["inherited object keys are no expiry", { category: { key: "constructor" } }, PASS],
  ])("%s", async (_why, o, outcome) => {
    expect(await runStep(consentExpiry, o)).toEqual(outcome);
  });
});

describe("reachability", () => {
  const NONE: StepOutcome = { kind: "drop", status: "suppressed", reason: "no_reachable_channel" };
  test.each<[string, ContextOverrides, StepOutcome]>([
    ["all planned channels reachable", { message: { channels: ["push", "email"] } }, PASS],
    [
      "unconfigured channel dropped, order kept",
      { message: { channels: ["slack", "push", "email"] } },
      { kind: "change", patch: { channels: ["push", "email"] } },
    ],
    [
      "muted channel dropped",
      { message: { channels: ["sms", "email"] }, recipient: { mutedChannels: ["sms"] } },
      { kind: "change", patch: { channels: ["email"] } },
    ],
    [
      "channel without an enabled address dropped",
      {
        message: { channels: ["sms", "email"] },
        recipient: {
          addresses: [
            { channel: "sms", value: "+15125550100", enabled: false },
            { channel: "email", value: "a@b.c", enabled: true },
          ],
        },
      },
      { kind: "change", patch: { channels: ["email"] } },
    ],
    [
      "one enabled address among disabled ones is enough",
      {
        message: { channels: ["sms"] },
        recipient: {
          addresses: [
            { channel: "sms", value: "+1", enabled: false },
            { channel: "sms", value: "+2", enabled: true },
          ],
        },
      },
      PASS,
    ],
    [
      "repeated channel listed once",
      { message: { channels: ["email", "email"] } },
      { kind: "change", patch: { channels: ["email"] } },
    ],
    ["nothing configured", { message: { channels: ["slack"] } }, NONE],
    [
      "everything muted",
      { message: { channels: ["email", "sms"] }, recipient: { mutedChannels: ["email", "sms"] } },
      NONE,
    ],
    ["no addresses", { recipient: { addresses: [] } }, NONE],
    [
      "an inbox channel needs no address",
      {
        message: { channels: ["in_app", "sms"] },
        config: { channels: ["in_app", "sms"], inboxChannels: ["in_app"] },
        recipient: { addresses: [] },
      },
      { kind: "change", patch: { channels: ["in_app"] } },
    ],
    [
      "a muted inbox channel is dropped",
      {
        message: { channels: ["in_app", "email"] },
        config: { channels: ["in_app", "email"], inboxChannels: ["in_app"] },
        recipient: { mutedChannels: ["in_app"] },
      },
      { kind: "change", patch: { channels: ["email"] } },
    ],
    [
      "an inbox channel that is not configured is dropped",
      {
        message: { channels: ["in_app"] },
        config: { channels: ["email"], inboxChannels: [] },
        recipient: { addresses: [] },
      },
      NONE,
    ],
  ])("%s", async (_why, o, outcome) => {
    expect(await runStep(reachability, o)).toEqual(outcome);
  });
});
