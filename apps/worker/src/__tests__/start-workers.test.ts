import { parseQueueNames, startWorkers } from "../start-workers";

describe("parseQueueNames", () => {
  it.each([
    [
      undefined,
      [
        "ingest",
        "policy",
        "delivery",
        "digests",
        "screening",
        "callbacks",
        "webhooks",
        "broadcasts",
        "scheduler",
      ],
    ],
    [
      [],
      [
        "ingest",
        "policy",
        "delivery",
        "digests",
        "screening",
        "callbacks",
        "webhooks",
        "broadcasts",
        "scheduler",
      ],
    ],
    [
      ["ingest", "policy"],
      ["ingest", "policy"],
    ],
    [["scheduler", "scheduler"], ["scheduler"]],
  ])("%j -> %j", (input, expected) => {
    expect(parseQueueNames(input)).toEqual(expected);
  });

  it("names the unknown queues", () => {
    expect(() => parseQueueNames(["ingest", "emails", "sms"])).toThrow(
      "unknown queue emails, sms (known: ingest, policy, delivery, digests, screening, callbacks, webhooks, broadcasts, scheduler)",
    );
  });
});

describe("startWorkers", () => {
  it("refuses to start when a chosen queue has no handler, before connecting anywhere", () => {
    const logger = { info: jest.fn(), warn: jest.fn(), error: jest.fn() };
    const config = {
      redis: { url: "redis://127.0.0.1:1", prefix: "unused" },
      worker: {
        concurrency: {
          ingest: 1,
          policy: 1,
          delivery: 1,
          digests: 1,
          screening: 1,
          callbacks: 1,
          webhooks: 1,
          broadcasts: 1,
          scheduler: 1,
        },
      },
    };
    expect(() => startWorkers({ config, handlers: {}, queues: ["scheduler", "ingest"], logger })).toThrow(
      "queue scheduler: no handler for sweep",
    );
    expect(logger.info).not.toHaveBeenCalled();
  });
});
