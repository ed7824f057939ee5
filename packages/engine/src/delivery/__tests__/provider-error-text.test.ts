import type { Provider } from "@svc/providers";
import { deliverMessage } from "../deliver-message";
import { ATTEMPT_ERROR_MAX, storableError } from "../send-to-channel";
import { attemptsOf, makePerson, queuedMessage, startBench, type Bench } from "./delivery-fixtures";

// A provider's error quotes the far side, which may answer with U+0000 (Postgres text cannot hold
// it) or pages of text. The attempt must still be written and the delivery decided; before, the
// attempt's INSERT failed and so did every retry.

let bench: Bench;

beforeAll(async () => {
  bench = await startBench("provider_error_text");
});
afterAll(() => bench.close());

const answering = (error: string): Provider => ({
  name: "far-side",
  send: () => Promise.resolve({ ok: false, retryable: false, error }),
});

test("an error holding U+0000 or too much text is stored cleaned, and the message fails as it should", async () => {
  const person = await makePerson(bench.prisma, [
    { channel: "sms", value: "+15550001001" },
    { channel: "email", value: "long@example.com" },
  ]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms", "email"] });
  const providers = new Map<string, Provider>([
    ["sms", answering("far-side rejected: bad\u0000number")],
    ["email", answering(`far-side said: ${"x".repeat(5000)}`)],
  ]);
  const outcome = await deliverMessage({ ...bench.deps, providers }, message.id, message.generation);
  expect(outcome).toMatchObject({ status: "failed" });
  const attempts = await attemptsOf(bench.prisma, message.id);
  expect(attempts.map((a) => a.error)).toEqual([
    "far-side rejected: bad\uFFFDnumber",
    `far-side said: ${"x".repeat(ATTEMPT_ERROR_MAX - 1 - "far-side said: ".length)}…`,
  ]);
  const row = await bench.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
  expect(row.status).toBe("failed");
  expect(row.status_reason).toContain("bad\uFFFDnumber");
});

test("storableError keeps ordinary text as it is", () => {
  expect(storableError("webhook 503")).toBe("webhook 503");
  expect(storableError("x".repeat(ATTEMPT_ERROR_MAX))).toHaveLength(ATTEMPT_ERROR_MAX);
  expect(storableError("x".repeat(ATTEMPT_ERROR_MAX + 1))).toHaveLength(ATTEMPT_ERROR_MAX);
});
