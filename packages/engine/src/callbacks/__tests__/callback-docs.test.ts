import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { signPayload } from "@svc/providers";
import { nominalCallbackSchedule } from "../callback-retry";
import { callbackBytes } from "../send-callback";

// docs/approvals.md "Decision callbacks" is what receivers copy: its test vector must be what svc
// signs, what node:crypto and Python's hmac compute on their own, and its Node and Python snippets
// must accept the vector and refuse stale, forged and changed requests. Its retry table must be
// the schedule the code follows.

const DOC = fs.readFileSync(path.resolve(__dirname, "../../../../../docs/approvals.md"), "utf8");
const PYTHON = "/usr/bin/python3";

/** From the heading `title` to the next heading (lines starting with `#` inside code blocks are code). */
function section(title: string): string {
  const lines = DOC.split("\n");
  const start = lines.indexOf(title);
  if (start < 0) throw new Error(`docs/approvals.md has no ${title}`);
  let inCode = false;
  let end = start + 1;
  for (; end < lines.length; end += 1) {
    if (lines[end]!.startsWith("```")) inCode = !inCode;
    else if (!inCode && lines[end]!.startsWith("#")) break;
  }
  return lines.slice(start, end).join("\n");
}

function codeBlock(text: string, language: string): string {
  const match = new RegExp("```" + language + "\\n([\\s\\S]*?)\\n```").exec(text);
  if (!match) throw new Error(`no ${language} block`);
  return match[1]!;
}

const vectorLines = codeBlock(section("#### Test vector"), "text").split("\n");
const field = (name: string) => {
  const line = vectorLines.find((l) => l.startsWith(`${name}: `));
  if (!line) throw new Error(`test vector has no ${name}`);
  return line.slice(name.length + 2);
};
const vector = {
  secret: field("secret"),
  t: Number(field("t")),
  body: field("body"),
  header: field("Svc-Signature"),
};

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
    const script = [
      "import hashlib, hmac, json, sys",
      "v = json.load(sys.stdin)",
      'mac = hmac.new(v["secret"].encode(), (str(v["t"]) + "." + v["body"]).encode(), hashlib.sha256)',
      'print("t=%d,v1=%s" % (v["t"], mac.hexdigest()))',
    ].join("\n");
    const out = execFileSync(PYTHON, ["-c", script], { input: JSON.stringify(vector), encoding: "utf8" });
    expect(out.trim()).toBe(vector.header);
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
const cases: [string, number, string, string, string, boolean][] = [
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

const caseInput = () =>
  JSON.stringify(cases.map(([, now, secret, body, header]) => [now, secret, body, header]));

describe("the documented Node snippet", () => {
  it("gives the expected answer in every case", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-doc-node-"));
    try {
      const file = path.join(dir, "verify.js");
      fs.writeFileSync(file, codeBlock(section("### Verifying `Svc-Signature`"), "js"));
      const driver = [
        `const { verifySvcSignature } = require(${JSON.stringify(file)});`,
        'const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));',
        'const answers = input.map(([now, secret, body, header]) => verifySvcSignature(secret, Buffer.from(body, "utf8"), header, now));',
        "console.log(JSON.stringify(answers));",
      ].join("\n");
      const out = execFileSync(process.execPath, ["-e", driver], { input: caseInput(), encoding: "utf8" });
      expect(JSON.parse(out)).toEqual(cases.map((c) => c[5]));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the documented Python snippet", () => {
  it("gives the expected answer in every case", () => {
    const snippet = codeBlock(section("### Verifying `Svc-Signature`"), "python");
    const driver = [
      snippet,
      "import json, sys",
      "print(json.dumps([verify_svc_signature(c[1], c[2].encode(), c[3], now=c[0]) for c in json.load(sys.stdin)]))",
    ].join("\n");
    const out = execFileSync(PYTHON, ["-c", driver], { input: caseInput(), encoding: "utf8" });
    expect(JSON.parse(out)).toEqual(cases.map((c) => c[5]));
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
