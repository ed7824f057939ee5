import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// The signature sections of the docs (docs/approvals.md "Decision callbacks", docs/webhooks.md
// "Verifying `Svc-Signature`") are what receivers copy: one reader of their sections, test vectors
// and code blocks, and one runner of their Node and Python snippets, for every doc that has them.

/** Debian's Python, whose hmac module checks svc's signatures independently. */
export const SYSTEM_PYTHON = "/usr/bin/python3";

export interface MarkdownDoc {
  /** From the heading line `title` to the next heading (a `#` inside a code block is code). */
  section(title: string): string;
}

export function readMarkdownDoc(file: string): MarkdownDoc {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  return {
    section(title) {
      const start = lines.indexOf(title);
      if (start < 0) throw new Error(`${path.basename(file)} has no ${title}`);
      let inCode = false;
      let end = start + 1;
      for (; end < lines.length; end += 1) {
        if (lines[end]!.startsWith("```")) inCode = !inCode;
        else if (!inCode && lines[end]!.startsWith("#")) break;
      }
      return lines.slice(start, end).join("\n");
    },
  };
}

/** The first fenced block of `language` in `text`. */
export function codeBlock(text: string, language: string): string {
  const match = new RegExp("```" + language + "\\n([\\s\\S]*?)\\n```").exec(text);
  if (!match) throw new Error(`no ${language} block`);
  return match[1]!;
}

export interface SignatureVector {
  secret: string;
  t: number;
  body: string;
  header: string;
}

/** The `text` block of a test-vector section: `secret: …`, `t: …`, `body: …`, `Svc-Signature: …`. */
export function signatureVector(section: string): SignatureVector {
  const lines = codeBlock(section, "text").split("\n");
  const field = (name: string) => {
    const line = lines.find((l) => l.startsWith(`${name}: `));
    if (!line) throw new Error(`test vector has no ${name}`);
    return line.slice(name.length + 2);
  };
  return {
    secret: field("secret"),
    t: Number(field("t")),
    body: field("body"),
    header: field("Svc-Signature"),
  };
}

/** The `Svc-Signature` header Python's hmac and hashlib compute for the vector on their own. */
export function pythonSignatureHeader(vector: SignatureVector): string {
  const script = [
    "import hashlib, hmac, json, sys",
    "v = json.load(sys.stdin)",
    'mac = hmac.new(v["secret"].encode(), (str(v["t"]) + "." + v["body"]).encode(), hashlib.sha256)',
    'print("t=%d,v1=%s" % (v["t"], mac.hexdigest()))',
  ].join("\n");
  return execFileSync(SYSTEM_PYTHON, ["-c", script], {
    input: JSON.stringify(vector),
    encoding: "utf8",
  }).trim();
}

/** [label, clock (unix seconds), secret, body, header, accepted?] */
export type VerifyCase = [string, number, string, string, string, boolean];

const caseInput = (cases: readonly VerifyCase[]) =>
  JSON.stringify(cases.map(([, now, secret, body, header]) => [now, secret, body, header]));

/** Runs the documented Node `verifySvcSignature` on each case; its answers, in order. */
export function runNodeVerifier(snippet: string, cases: readonly VerifyCase[]): boolean[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-doc-node-"));
  try {
    const file = path.join(dir, "verify.js");
    fs.writeFileSync(file, snippet);
    const driver = [
      `const { verifySvcSignature } = require(${JSON.stringify(file)});`,
      'const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));',
      'console.log(JSON.stringify(input.map(([now, secret, body, header]) => verifySvcSignature(secret, Buffer.from(body, "utf8"), header, now))));',
    ].join("\n");
    return JSON.parse(
      execFileSync(process.execPath, ["-e", driver], { input: caseInput(cases), encoding: "utf8" }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the documented Python `verify_svc_signature` on each case; its answers, in order. */
export function runPythonVerifier(snippet: string, cases: readonly VerifyCase[]): boolean[] {
  const driver = [
    snippet,
    "import json, sys",
    "print(json.dumps([verify_svc_signature(c[1], c[2].encode(), c[3], now=c[0]) for c in json.load(sys.stdin)]))",
  ].join("\n");
  return JSON.parse(
    execFileSync(SYSTEM_PYTHON, ["-c", driver], { input: caseInput(cases), encoding: "utf8" }),
  );
}
