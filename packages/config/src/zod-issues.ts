// Turns zod issues into ConfigIssues whose message reads "api.port: expected number, received string".
import type { z } from "zod";
import type { ConfigIssue } from "./config-error";
import { looksLikeSecretKey, secretKeyMessage } from "./secret-keys";

type Path = readonly PropertyKey[];

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function describeBound(
  issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall,
  word: "least" | "most",
): string {
  const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
  if (issue.origin === "array") return `expected at ${word} ${bound} item(s)`;
  if (issue.origin === "string") return `expected at ${word} ${bound} character(s)`;
  const op = word === "least" ? (issue.inclusive ? ">=" : ">") : issue.inclusive ? "<=" : "<";
  return `expected a number ${op} ${bound}, received ${JSON.stringify(issue.input)}`;
}

function messageOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type": {
      const expected = issue.expected === "int" ? "integer" : issue.expected;
      // "expected integer, received 1.5" says more than "received number".
      const received = typeof issue.input === "number" ? String(issue.input) : typeName(issue.input);
      return `expected ${expected}, received ${received}`;
    }
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, received ${JSON.stringify(issue.input)}`;
    case "too_small":
      return describeBound(issue, "least");
    case "too_big":
      return describeBound(issue, "most");
    case "invalid_key":
      return issue.issues.map(messageOf).join("; ");
    default:
      return issue.message;
  }
}

export function toConfigIssues(issues: readonly z.core.$ZodIssue[]): { path: Path; issue: ConfigIssue }[] {
  return issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => {
        const path = [...issue.path, key];
        const dotted = path.map(String).join(".");
        const message = looksLikeSecretKey(key) ? secretKeyMessage(dotted, key) : "unknown key";
        return { path, issue: { path: dotted, message } };
      });
    }
    return [
      { path: issue.path, issue: { path: issue.path.map(String).join("."), message: messageOf(issue) } },
    ];
  });
}
