import { lintSource } from "@secretlint/core";
import { rules as recommended } from "@secretlint/secretlint-rule-preset-recommend";

// svc's deterministic secret check (docs/screening.md "The secret check"), run before any model
// is asked: secretlint's recommended rules, in process, over every rendered text of the message.
// A hit holds the message as `screening: secret`; only the matching rule's id is kept. The match,
// and secretlint's message text (which quotes it, masked or not), are never stored or logged.

type SecretlintConfig = Parameters<typeof lintSource>[0]["options"]["config"];

// Each rule of the preset on its own (a preset cannot switch one of its rules off):
const OPTIONS: Record<string, Record<string, unknown>> = {
  // AWS access key ids (AKIA…) alone are worth a person's look in a notification.
  "@secretlint/secretlint-rule-aws": { enableIDScanRule: true },
};
// `secretlint-disable` comments in a message must not switch the check off.
const LEFT_OUT = new Set(["@secretlint/secretlint-rule-filter-comments"]);

const CONFIG: SecretlintConfig = {
  rules: recommended
    .filter((rule) => !LEFT_OUT.has(rule.meta.id))
    .map((rule) => ({ id: rule.meta.id, rule, options: OPTIONS[rule.meta.id] ?? {} })),
};

/** The id of the first rule that matched (in text order), or null when nothing looks like a secret. */
export async function findSecret(texts: readonly string[]): Promise<string | null> {
  const content = texts.join("\n");
  if (content === "") return null;
  const result = await lintSource({
    source: { filePath: "message.txt", ext: ".txt", contentType: "text", content },
    options: { config: CONFIG, maskSecrets: true },
  });
  const first = [...result.messages].sort((a, b) => a.range[0] - b.range[0])[0];
  return first?.ruleId ?? null;
}
