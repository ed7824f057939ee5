import { lintSource } from "@secretlint/core";
import { rules as recommended } from "@secretlint/secretlint-rule-preset-recommend";

// svc's deterministic secret check (docs/screening.md "The secret check"), run before any model
// is asked: secretlint's recommended rules, in process, over every rendered text of the message.
// A hit holds the message as `screening: secret`; only the matching rule's id is kept. The match,
// and secretlint's message text (which quotes it, masked or not), are never stored or logged.
// The same check masks a coding agent's tool call before svc stores or sends any of it
// (docs/hooks.md "Secrets never travel"): `AKIA…` becomes `[secret: AWS access key]`.

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

// Between two messages' texts in one scan: blank lines end every pattern that matters here (a
// hit is attributed to the message its first character is in).
const BETWEEN_MESSAGES = "\n\n\n";

interface Hit {
  ruleId: string;
  messageId: string;
  range: readonly [number, number];
}

/** Scans `texts` at once; each hit with the index of the text it starts in and its range there. */
async function scan(texts: readonly string[]): Promise<(Hit & { index: number })[]> {
  const starts: number[] = [];
  let content = "";
  for (const text of texts) {
    if (content !== "") content += BETWEEN_MESSAGES;
    starts.push(content.length);
    content += text;
  }
  if (content.trim() === "") return [];
  const result = await lintSource({
    source: { filePath: "message.txt", ext: ".txt", contentType: "text", content },
    options: { config: CONFIG, maskSecrets: true },
  });
  return [...result.messages]
    .sort((a, b) => a.range[0] - b.range[0])
    .flatMap((hit) => {
      const index = starts.findLastIndex((start) => start <= hit.range[0]);
      if (index < 0) return [];
      const start = starts[index]!;
      return [
        {
          ruleId: hit.ruleId,
          messageId: hit.messageId,
          index,
          range: [hit.range[0] - start, Math.min(hit.range[1] - start, texts[index]!.length)] as const,
        },
      ];
    });
}

/** The id of the first rule that matched (in text order), or null when nothing looks like a secret. */
export async function findSecret(texts: readonly string[]): Promise<string | null> {
  return (await findSecrets([texts]))[0]!;
}

/**
 * `findSecret` for several messages in one scan (the scanner's set-up costs far more than the
 * text): per message, the first rule that matched in it, or null.
 */
export async function findSecrets(messages: readonly (readonly string[])[]): Promise<(string | null)[]> {
  const found: (string | null)[] = messages.map(() => null);
  for (const hit of await scan(messages.map((texts) => texts.join("\n")))) {
    if (found[hit.index] === null) found[hit.index] = hit.ruleId;
  }
  return found;
}

// What a masked secret is called (`[secret: AWS access key]`): by secretlint's message id where
// one rule finds several kinds, else by the rule.
const SECRET_NAMES: Record<string, string> = {
  AWSAccessKeyID: "AWS access key",
  AWSSecretAccessKey: "AWS secret access key",
  AWSAccountID: "AWS account id",
  aws: "AWS credential",
  gcp: "Google Cloud key",
  privatekey: "private key",
  npm: "npm token",
  basicauth: "password",
  slack: "Slack token",
  sendgrid: "SendGrid key",
  shopify: "Shopify token",
  stripe: "Stripe key",
  github: "GitHub token",
  gitlab: "GitLab token",
  grafana: "Grafana token",
  openai: "OpenAI key",
  anthropic: "Anthropic key",
  groq: "Groq key",
  huggingface: "Hugging Face token",
  linear: "Linear key",
  notion: "Notion token",
  "1password": "1Password token",
  "database-connection-string": "database password",
  "hashicorp-vault": "Vault token",
  vercel: "Vercel token",
  databricks: "Databricks token",
  docker: "Docker token",
  figma: "Figma token",
  cloudflare: "Cloudflare token",
  tailscale: "Tailscale key",
};

export function secretName(ruleId: string, messageId: string): string {
  const rule = ruleId.replace(/^@secretlint\/secretlint-rule-/, "");
  return SECRET_NAMES[messageId] ?? SECRET_NAMES[rule] ?? "credential";
}

// Some rules report a range that starts at the variable's name and is the value's length long
// (`AWS_SECRET_ACCESS_KEY=Zr7H…` is cut short): a mask reaches to the end of the token.
const TOKEN_CHAR = /[A-Za-z0-9+/=_.-]/;

/** Each text with every secret in it replaced by `[secret: <what>]` (one scan for all of them). */
export async function maskSecrets(texts: readonly string[]): Promise<string[]> {
  const hits = await scan(texts);
  if (hits.length === 0) return [...texts];
  const masked = [...texts];
  // Back to front, so earlier ranges keep their offsets; overlapping hits merge into the first.
  const byText = new Map<number, { from: number; to: number; name: string }[]>();
  for (const hit of hits) {
    const text = texts[hit.index]!;
    let to = hit.range[1];
    while (to < text.length && TOKEN_CHAR.test(text[to]!)) to += 1;
    const spans = byText.get(hit.index) ?? [];
    const last = spans.at(-1);
    if (last && hit.range[0] < last.to) last.to = Math.max(last.to, to);
    else spans.push({ from: hit.range[0], to, name: secretName(hit.ruleId, hit.messageId) });
    byText.set(hit.index, spans);
  }
  for (const [index, spans] of byText) {
    let text = masked[index]!;
    for (const span of [...spans].reverse())
      text = `${text.slice(0, span.from)}[secret: ${span.name}]${text.slice(span.to)}`;
    masked[index] = text;
  }
  return masked;
}

/** `value` with every string in it (object keys aside) masked as `maskSecrets` masks texts. */
export async function maskSecretsIn<T>(value: T): Promise<T> {
  const texts: string[] = [];
  const collect = (node: unknown): void => {
    if (typeof node === "string") texts.push(node);
    else if (Array.isArray(node)) node.forEach(collect);
    else if (node !== null && typeof node === "object") Object.values(node).forEach(collect);
  };
  collect(value);
  const masked = await maskSecrets(texts);
  if (masked.every((text, i) => text === texts[i])) return value;
  let next = 0;
  const rebuild = (node: unknown): unknown => {
    if (typeof node === "string") return masked[next++];
    if (Array.isArray(node)) return node.map(rebuild);
    if (node !== null && typeof node === "object")
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, rebuild(item)]));
    return node;
  };
  return rebuild(value) as T;
}
