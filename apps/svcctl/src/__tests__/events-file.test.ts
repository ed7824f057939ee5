import fs from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { startHarness, type Harness } from "../../../api/src/__tests__/service-harness";
import { runCli } from "../program";
import { EMPTY_CWD, svcctl } from "./harness";

// `svcctl events post --file` against an API listening on a port: NDJSON in batches through
// POST /v1/events/batch, a summary with per-line errors, a progress bar on a terminal.

let h: Harness;
let server: Server;
let env: Record<string, string>;

beforeAll(async () => {
  // A small body limit, so a batch of 500 lines is refused (413) and sent again in halves.
  h = await startHarness("svcctl_events_file", { config: { api: { max_body_bytes: 4 * 1024 } } });
  server = h.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = { SVC_URL: url, SVC_API_KEY: await h.keyWith(["events:write"]) };
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

function ndjson(name: string, lines: string[]): string {
  const file = path.join(EMPTY_CWD, name);
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

const event = (i: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: "file.event", recipient: `p-${i}`, idempotency_key: `file-${i}`, ...extra });

describe("svcctl events post --file", () => {
  it("sends every line in batches and summarises accepted, duplicates and failed with line numbers", async () => {
    const file = ndjson("mixed.ndjson", [
      event(1),
      event(2),
      "",
      "{not json",
      JSON.stringify({ name: "file.event" }),
      event(1),
      "[1, 2]",
      event(3, { name: "svc.reserved" }),
      event(4),
    ]);
    const run = await svcctl(["events", "post", "--file", file, "--batch-size", "3"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("error: 4 of 8 events were refused\n");
    expect(JSON.parse(run.stdout)).toEqual({
      lines: 8,
      accepted: 3,
      duplicates: 1,
      failed: 4,
      errors: [
        {
          line: 4,
          status: null,
          title: "Not sent",
          detail: expect.stringMatching(/^not JSON \(/),
        },
        { line: 5, status: 422, title: "Unprocessable content", detail: "recipient: is required" },
        { line: 7, status: null, title: "Not sent", detail: "expected a JSON object (one event per line)" },
        {
          line: 8,
          status: 403,
          title: "Forbidden",
          detail: "event names starting 'svc.' are reserved for the service",
        },
      ],
    });
    expect(await h.prisma.event.count({ where: { name: "file.event" } })).toBe(3);

    // Sent again: every keyed line is a duplicate now.
    const again = await svcctl(
      ["events", "post", "--file", ndjson("again.ndjson", [event(1), event(2)])],
      env,
    );
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ lines: 2, accepted: 0, duplicates: 2, failed: 0 });
  });

  it("splits a batch the body limit refuses, and draws a progress bar on a terminal", async () => {
    const lines = Array.from({ length: 120 }, (_, i) => event(100 + i, { data: { pad: "x".repeat(60) } }));
    const file = ndjson("many.ndjson", lines);
    let stdout = "";
    let stderr = "";
    const code = await runCli(["events", "post", "--file", file], {
      env,
      cwd: EMPTY_CWD,
      stdout: { write: (chunk: string) => (stdout += chunk), isTTY: true },
      stderr: { write: (chunk: string) => (stderr += chunk), isTTY: true },
    });
    expect(code).toBe(0);
    expect(stdout).toBe("120 events: 120 accepted, 0 duplicates, 0 failed\n");
    expect(stderr).toContain(`\r[${"-".repeat(30)}] 0/120 events`);
    expect(stderr.endsWith(`\r[${"#".repeat(30)}] 120/120 events\n`)).toBe(true);
    expect(
      await h.prisma.event.count({ where: { idempotency_key: { startsWith: "file-1" } } }),
    ).toBeGreaterThan(100);
  });

  it("refuses --file with a name or --recipient, and a bad --batch-size", async () => {
    const file = ndjson("one.ndjson", [event(9)]);
    const both = await svcctl(["events", "post", "x", "--file", file], env);
    expect(both).toMatchObject({ code: 2 });
    expect(both.stderr).toContain("--file takes each event from the file");
    const size = await svcctl(["events", "post", "--file", file, "--batch-size", "1001"], env);
    expect(size.code).toBe(2);
    expect((await svcctl(["events", "post"], env)).stderr).toContain("give the event's name and --recipient");
  });
});
