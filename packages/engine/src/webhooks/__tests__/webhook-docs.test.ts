import { createHmac } from "node:crypto";
import path from "node:path";
import { signPayload } from "@svc/providers";
import {
  codeBlock,
  pythonSignatureHeader,
  readMarkdownDoc,
  runNodeVerifier,
  runPythonVerifier,
  signatureVector,
  type VerifyCase,
} from "@svc/testkit";
import { webhookBodyBytes } from "../send-webhook";
import { nextWebhookTry, nominalWebhookSchedule, webhookEndpointBlock } from "../webhook-retry";

// docs/webhooks.md is what receivers copy: its test vector must be what svc signs (and what
// node:crypto and Python's hmac compute on their own), its Node and Python snippets must accept it
// and refuse stale, forged, changed and rotated-away requests, and its retry table must be the
// schedule the code follows.

const doc = readMarkdownDoc(path.resolve(__dirname, "../../../../../docs/webhooks.md"));
const section = (title: string) => doc.section(title);
const vector = signatureVector(section("### Test vector"));

describe("the test vector", () => {
  it("is what svc signs, for a body in the form svc sends", () => {
    expect(webhookBodyBytes(JSON.parse(vector.body))).toBe(vector.body);
    expect(signPayload(vector.secret, vector.body, vector.t)).toBe(vector.header);
  });

  it("is what node:crypto and Python's hmac compute on their own", () => {
    const hex = createHmac("sha256", vector.secret)
      .update(`${vector.t}.${vector.body}`, "utf8")
      .digest("hex");
    expect(`t=${vector.t},v1=${hex}`).toBe(vector.header);
    expect(pythonSignatureHeader(vector)).toBe(vector.header);
  });
});

const rotated = signPayload(["whsec_new", vector.secret], vector.body, vector.t);
const cases: VerifyCase[] = [
  ["at t", vector.t, vector.secret, vector.body, vector.header, true],
  ["300 s later", vector.t + 300, vector.secret, vector.body, vector.header, true],
  ["301 s later (a replay)", vector.t + 301, vector.secret, vector.body, vector.header, false],
  ["another secret", vector.t, "whsec_other", vector.body, vector.header, false],
  ["a changed body", vector.t, vector.secret, vector.body.replace("failed", "sent"), vector.header, false],
  ["during a rotation, the old secret", vector.t, vector.secret, vector.body, rotated, true],
  ["during a rotation, the new secret", vector.t, "whsec_new", vector.body, rotated, true],
  ["no v1", vector.t, vector.secret, vector.body, `t=${vector.t}`, false],
  ["an empty header", vector.t, vector.secret, vector.body, "", false],
];
describe("the documented snippets", () => {
  it("Node gives the expected answer in every case", () => {
    const snippet = codeBlock(section("## Verifying `Svc-Signature`"), "js");
    expect(runNodeVerifier(snippet, cases)).toEqual(cases.map((c) => c[5]));
  });

  it("Python gives the expected answer in every case", () => {
    const snippet = codeBlock(section("## Verifying `Svc-Signature`"), "python");
    expect(runPythonVerifier(snippet, cases)).toEqual(cases.map((c) => c[5]));
  });
});

describe("the retry schedule", () => {
  it("is the documented table: 8 tries over about a day, the first retry within 10 s", () => {
    const offsets = nominalWebhookSchedule(8);
    expect(offsets).toHaveLength(8);
    expect(offsets[1]).toBe(10_000);
    const table = section("## Retries")
      .split("\n")
      .find((line) => line.startsWith("| After |"))!;
    const cells = table
      .split("|")
      .map((c) => c.trim())
      .slice(2, -1);
    const format = (ms: number) =>
      ms === 0
        ? "0"
        : ms < 60_000
          ? `${Math.round(ms / 1000)} s`
          : ms < 3_600_000
            ? `${Math.round(ms / 60_000)} min`
            : `${(ms / 3_600_000).toFixed(1)} h`;
    expect(cells).toEqual(offsets.map(format));
    expect(offsets.at(-1)! / 3_600_000).toBeGreaterThan(20);
    expect(offsets.at(-1)! / 3_600_000).toBeLessThan(26);
  });

  it.each([
    [1, 0, 10_000],
    [1, 0.999, 8_002],
    [2, 0, 43_000],
    [7, 0, 63_213_630],
  ])("after try %i (random %f) waits %i ms", (attempts, random, wait) => {
    const now = new Date(0);
    expect(nextWebhookTry({ now, attempts, maxAttempts: 8, random })!.getTime()).toBeCloseTo(wait, -1);
  });

  it("gives up after max_attempts, and waits at least Retry-After (at most a day)", () => {
    const now = new Date(0);
    expect(nextWebhookTry({ now, attempts: 8, maxAttempts: 8, random: 0 })).toBeNull();
    expect(
      nextWebhookTry({ now, attempts: 1, maxAttempts: 8, random: 0, retryAfterMs: 120_000 })!.getTime(),
    ).toBe(120_000);
    expect(
      nextWebhookTry({
        now,
        attempts: 1,
        maxAttempts: 8,
        random: 0,
        retryAfterMs: 9 * 86_400_000,
      })!.getTime(),
    ).toBe(86_400_000);
  });

  it("blocks a failing endpoint a quarter of how long it failed, 10 s to 1 h, or its Retry-After", () => {
    const now = new Date(10_000_000_000);
    const block = (failingForMs: number, retryAfterMs?: number) =>
      webhookEndpointBlock({
        now,
        failingSince: new Date(now.getTime() - failingForMs),
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      }).getTime() - now.getTime();
    expect(block(0)).toBe(10_000);
    expect(block(400_000)).toBe(100_000);
    expect(block(86_400_000)).toBe(3_600_000);
    expect(block(0, 7_200_000)).toBe(7_200_000);
  });
});
