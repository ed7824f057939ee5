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
  return (await findSecrets([texts]))[0]!;
}

// Between two messages' texts in one scan: blank lines end every pattern that matters here (a
// hit is attributed to the message its first character is in).
const BETWEEN_MESSAGES = "\n\n\n";

/**
 * `findSecret` for several messages in one scan (the scanner's set-up costs far more than the
 * text): per message, the first rule that matched in it, or null.
 */
export async function findSecrets(messages: readonly (readonly string[])[]): Promise<(string | null)[]> {
  const starts: number[] = [];
  let content = "";
  for (const texts of messages) {
    if (content !== "") content += BETWEEN_MESSAGES;
    starts.push(content.length);
    content += texts.join("\n");
  }
  const found: (string | null)[] = messages.map(() => null);
  if (content.trim() === "") return found;
  const result = await lintSource({
    source: { filePath: "message.txt", ext: ".txt", contentType: "text", content },
    options: { config: CONFIG, maskSecrets: true },
  });
  for (const hit of [...result.messages].sort((a, b) => a.range[0] - b.range[0])) {
    const index = starts.findLastIndex((start) => start <= hit.range[0]);
    if (index >= 0 && found[index] === null) found[index] = hit.ruleId;
  }
  return found;
}
