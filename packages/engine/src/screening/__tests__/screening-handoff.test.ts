import { parseConfig } from "@svc/config";
import { noScreening } from "../../shared/screening-gate";
import { firstTokenAlternatives } from "../models/openai-model";
import { needsScreening, SCREENING_BATCH, screeningGate, screeningJobsFor } from "../screening-handoff";

// The pure parts of the hand-off (docs/screening.md "How it runs"); the whole flow is tested end to
// end in apps/api/src/__tests__/screening-*.test.ts.

test("with screening off the gate is the pass-through seam itself", () => {
  const config = parseConfig({}, {});
  const gate = screeningGate({
    config,
    prisma: {} as never,
    queues: {} as never,
    logger: { info: () => undefined, warn: () => undefined },
    now: () => new Date(),
  });
  expect(gate).toBe(noScreening);
});

test.each<[string, { agent_key: string | null; reviewed_at: Date | null; screening: unknown }, boolean]>([
  ["an agent's message without a verdict", { agent_key: "bot", reviewed_at: null, screening: null }, true],
  ["a backend's message", { agent_key: null, reviewed_at: null, screening: null }, false],
  ["a message a person approved", { agent_key: "bot", reviewed_at: new Date(), screening: null }, false],
  [
    "a message with a stored verdict (a retry)",
    { agent_key: "bot", reviewed_at: null, screening: {} },
    false,
  ],
])("needsScreening: %s → %s", (_name, message, expected) => {
  expect(needsScreening(message as never)).toBe(expected);
});

test("hand-offs become one job for a lone message, batches of SCREENING_BATCH otherwise", () => {
  const messages = Array.from({ length: SCREENING_BATCH + 1 }, (_, i) => ({
    messageId: `msg_${i}`,
    generation: 1,
  }));
  expect(screeningJobsFor(messages.slice(0, 1))).toEqual([
    { name: "screen-message", payload: { messageId: "msg_0", generation: 1 } },
  ]);
  const jobs = screeningJobsFor(messages);
  expect(jobs.map((job) => job.name)).toEqual(["screen-messages", "screen-message"]);
  expect((jobs[0]!.payload as { messages: unknown[] }).messages).toHaveLength(SCREENING_BATCH);
});

test("openai: the answer token's alternatives add up by trimmed, lower-cased token", () => {
  const completion = {
    choices: [
      {
        logprobs: {
          content: [
            {
              token: "Yes",
              logprob: Math.log(0.6),
              top_logprobs: [
                { token: "Yes", logprob: Math.log(0.6) },
                { token: " yes", logprob: Math.log(0.1) },
                { token: "NO", logprob: Math.log(0.25) },
                { token: "Maybe", logprob: Math.log(0.05) },
              ],
            },
          ],
        },
      },
    ],
  };
  const alternatives = firstTokenAlternatives(completion)!;
  expect(alternatives.get("yes")).toBeCloseTo(0.7, 12);
  expect(alternatives.get("no")).toBeCloseTo(0.25, 12);
  expect(firstTokenAlternatives({ choices: [{ message: { content: "yes" } }] })).toBeNull();
});
