import { createLogCapture } from "../capture";
import { addLogContext, withLogContext } from "../context";
import { createLogger } from "../logger";

const KEY = `svc_${"Z9y8X7w6V5".repeat(4)}abc`;

function setup(level?: string) {
  const capture = createLogCapture();
  const logger = createLogger({ service: "test", level, stream: capture.stream });
  return { capture, logger };
}

describe("createLogger", () => {
  it("writes JSON with level, message, service and timestamp", () => {
    const { capture, logger } = setup();
    logger.info("hello", { n: 1 });
    const [entry] = capture.entries();
    expect(entry).toMatchObject({ level: "info", message: "hello", service: "test", n: 1 });
    expect(typeof entry?.timestamp).toBe("string");
  });

  it("respects the level", () => {
    const { capture, logger } = setup("warn");
    logger.info("skipped");
    logger.warn("kept");
    expect(capture.entries().map((e) => e.message)).toEqual(["kept"]);
  });

  it("adds context fields from withLogContext, nested contexts merge, call fields win", async () => {
    const { capture, logger } = setup();
    await withLogContext({ request_id: "r1" }, async () => {
      await Promise.resolve();
      withLogContext({ job_id: "j1" }, () => logger.info("inner"));
      addLogContext({ key_id: "key_1" });
      logger.info("outer", { request_id: "explicit" });
    });
    logger.info("outside");
    expect(
      capture
        .entries()
        .map(({ message, request_id, job_id, key_id }) => ({ message, request_id, job_id, key_id })),
    ).toEqual([
      { message: "inner", request_id: "r1", job_id: "j1", key_id: undefined },
      { message: "outer", request_id: "explicit", job_id: undefined, key_id: "key_1" },
      { message: "outside", request_id: undefined, job_id: undefined, key_id: undefined },
    ]);
  });

  it("redacts secrets in messages and fields", () => {
    const { capture, logger } = setup();
    logger.info(`using ${KEY}`, { headers: { authorization: `Bearer ${KEY}` }, token: "t", max_tokens: 5 });
    const [entry] = capture.entries();
    expect(entry).toMatchObject({
      message: "using svc_[REDACTED]",
      headers: { authorization: "[REDACTED]" },
      token: "[REDACTED]",
      max_tokens: 5,
    });
    expect(JSON.stringify(entry)).not.toContain(KEY);
  });
});
