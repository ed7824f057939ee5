import { AppError } from "@svc/core";
import { metricsOfAllApiProcesses } from "../api-processes";

// docs/operations.md "Metrics": under `api.processes` > 1 an API process asks its supervisor for
// the summed metrics over the IPC channel. A supervisor that does not answer (or answers with an
// error) must give a 503 problem with Retry-After, never hang the scrape nor answer 500. The whole
// path with a real supervisor is in test/api-processes.test.ts.

const sent: unknown[] = [];
const hadSend = "send" in process;
const original = process.send;

beforeEach(() => {
  sent.length = 0;
  process.send = ((message: unknown) => {
    sent.push(message);
    return true;
  }) as typeof process.send;
});
afterEach(() => {
  if (hadSend) process.send = original;
  else delete (process as { send?: unknown }).send;
});

test("no answer within the time allowed: 503 unavailable with Retry-After", async () => {
  const scrape = metricsOfAllApiProcesses(50);
  await expect(scrape).rejects.toBeInstanceOf(AppError);
  await expect(scrape).rejects.toMatchObject({
    status: 503,
    code: "unavailable",
    headers: { "Retry-After": "5" },
    detail: "the supervisor did not answer for the metrics within 50 ms",
  });
  expect(sent).toHaveLength(1);
});

test("the supervisor's answer for this request is the scrape; an error answer is a 503", async () => {
  const scrape = metricsOfAllApiProcesses(2_000);
  const [request] = sent as Record<string, number>[];
  const id = request!["svc:api-metrics"]!;
  // An answer to another request is not this one's.
  process.emit("message", { "svc:api-metrics": { id: id + 1000, text: "other" } }, undefined);
  process.emit("message", { "svc:api-metrics": { id, text: "svc_up 1\n" } }, undefined);
  await expect(scrape).resolves.toBe("svc_up 1\n");

  const failing = metricsOfAllApiProcesses(2_000);
  const second = (sent[1] as Record<string, number>)["svc:api-metrics"]!;
  process.emit("message", { "svc:api-metrics": { id: second, error: "Operation timed out." } }, undefined);
  await expect(failing).rejects.toMatchObject({
    status: 503,
    detail: "the supervisor could not gather the metrics: Operation timed out.",
  });
});
