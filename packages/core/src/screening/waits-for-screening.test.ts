import { composedWaitingForScreening, needsScreening } from "./waits-for-screening";

const now = new Date("2026-11-24T12:00:00.000Z");
type Composed = Parameters<typeof composedWaitingForScreening>[0];
const agentQueuedNow: Composed = {
  agent_key: "bot",
  reviewed_at: null,
  screening: null,
  status: "queued",
  send_at: now,
};

test.each<[string, Parameters<typeof needsScreening>[0], boolean]>([
  ["an agent's message without a verdict", { agent_key: "bot", reviewed_at: null, screening: null }, true],
  ["a backend's message", { agent_key: null, reviewed_at: null, screening: null }, false],
  ["a message a person approved", { agent_key: "bot", reviewed_at: now, screening: null }, false],
  [
    "a message with a stored verdict (a retry)",
    { agent_key: "bot", reviewed_at: null, screening: {} },
    false,
  ],
])("needsScreening: %s → %s", (_name, message, expected) => {
  expect(needsScreening(message)).toBe(expected);
});

test.each<[string, Partial<Composed>, boolean, boolean]>([
  ["an agent's message queued for now", {}, true, true],
  ["screening off", {}, false, false],
  ["due a second later (quiet hours, a delay)", { send_at: new Date(now.getTime() + 1000) }, true, false],
  ["due a moment ago", { send_at: new Date(now.getTime() - 1000) }, true, true],
  ["held for approval by the policy", { status: "pending_approval" }, true, false],
  ["suppressed by the policy", { status: "suppressed" }, true, false],
  ["a backend's message", { agent_key: null }, true, false],
  ["approved by a person (a re-check)", { reviewed_at: now }, true, false],
])("composedWaitingForScreening: %s → %s", (_name, change, on, expected) => {
  expect(composedWaitingForScreening({ ...agentQueuedNow, ...change }, on, now)).toBe(expected);
});
