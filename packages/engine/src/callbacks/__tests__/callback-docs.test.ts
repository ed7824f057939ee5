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
import { nominalCallbackSchedule } from "../callback-retry";
import { callbackBytes } from "../send-callback";

// docs/approvals.md "Decision callbacks" is what receivers copy: its test vector must be what svc
// signs, what node:crypto and Python's hmac compute on their own, and its Node and Python snippets
// must accept the vector and refuse stale, forged and changed requests. Its retry table must be
// the schedule the code follows.

const doc = readMarkdownDoc(path.resolve(__dirname, "../../../../../docs/approvals.md"));
const section = (title: string) => doc.section(title);
const vector = signatureVector(section("#### Test vector"));

describe("the test vector", () => {
  it("is what svc's signing code produces", () => {
    expect(vector.header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(signPayload(vector.secret, vector.body, vector.t)).toBe(vector.header);
  });

  it("is what node:crypto computes on its own", () => {
    const hex = createHmac("sha256", vector.secret)
      .update(`${vector.t}.${vector.body}`, "utf8")
      .digest("hex");
    expect(`t=${vector.t},v1=${hex}`).toBe(vector.header);
  });

  it("is what Python's hmac and hashlib compute", () => {
    expect(pythonSignatureHeader(vector)).toBe(vector.header);
  });

  it("has a body in the form svc sends: the documented field order, compact JSON", () => {
    expect(callbackBytes(JSON.parse(vector.body))).toBe(vector.body);
    // The example request shows the same body and signature.
    const example = codeBlock(section("### The request"), "http");
    expect(example).toContain(`Svc-Signature: ${vector.header}\n`);
    expect(example.endsWith(`\n\n${vector.body}`)).toBe(true);
  });
});

// [clock, secret, body, header] → accepted?
const cases: VerifyCase[] = [
  ["at t", vector.t, vector.secret, vector.body, vector.header, true],
  ["300 s later", vector.t + 300, vector.secret, vector.body, vector.header, true],
  ["301 s later (a replay)", vector.t + 301, vector.secret, vector.body, vector.header, false],
  ["301 s earlier", vector.t - 301, vector.secret, vector.body, vector.header, false],
  ["another secret", vector.t, "not-the-secret", vector.body, vector.header, false],
  [
    "a changed body",
    vector.t,
    vector.secret,
    vector.body.replace("approved", "rejected"),
    vector.header,
    false,
  ],
  ["no v1", vector.t, vector.secret, vector.body, `t=${vector.t}`, false],
  [
    "a rotated secret listed first",
    vector.t,
    vector.secret,
    vector.body,
    `t=${vector.t},v1=${"0".repeat(64)},${vector.header.split(",")[1]}`,
    true,
  ],
  ["an empty header", vector.t, vector.secret, vector.body, "", false],
];

describe("the documented Node snippet", () => {
  it("gives the expected answer in every case", () => {
    const snippet = codeBlock(section("### Verifying `Svc-Signature`"), "js");
    expect(runNodeVerifier(snippet, cases)).toEqual(cases.map((c) => c[5]));
  });
});

describe("the documented Python snippet", () => {
  it("gives the expected answer in every case", () => {
    const snippet = codeBlock(section("### Verifying `Svc-Signature`"), "python");
    expect(runPythonVerifier(snippet, cases)).toEqual(cases.map((c) => c[5]));
  });
});

describe("the retry table", () => {
  const format = (ms: number) => {
    if (ms === 0) return "at once";
    const seconds = ms / 1000;
    const parts = [
      [Math.floor(seconds / 3600), "h"],
      [Math.floor((seconds % 3600) / 60), "min"],
      [seconds % 60, "s"],
    ] as const;
    return parts
      .filter(([value]) => value > 0)
      .map(([value, unit]) => `${value} ${unit}`)
      .join(" ");
  };

  it("lists the tries the code makes, with the full waits", () => {
    const rows = section("### Retries")
      .split("\n")
      .filter((line) => /^\| \d+ \|/.test(line))
      .map((line) =>
        line
          .split("|")
          .map((cell) => cell.trim())
          .slice(1, 3),
      );
    expect(rows).toEqual(nominalCallbackSchedule().map((ms, i) => [String(i + 1), format(ms)]));
  });
});
