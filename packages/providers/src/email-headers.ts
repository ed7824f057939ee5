// Stable e-mail identities: resending a message yields the same Message-ID, and every message of a
// template `thread` points at one invented parent so mail clients group the conversation
// (docs/providers.md, "smtp").
import { createHash } from "node:crypto";

export function emailMessageId(messageId: string, domain: string): string {
  return `<${messageId}@${domain}>`;
}

export function threadMessageId(thread: string, domain: string): string {
  const digest = createHash("sha256").update(thread).digest("hex").slice(0, 32);
  return `<thread-${digest}@${domain}>`;
}

/** RFC 2369 / RFC 8058 headers; only offered when the category allows unsubscribing. */
export function unsubscribeHeaders(options: {
  allowUnsubscribe: boolean;
  unsubscribeUrl: string | null | undefined;
  mailto: string | undefined;
  messageId: string;
}): Record<string, string> {
  if (!options.allowUnsubscribe || !options.unsubscribeUrl) return {};
  const targets = [`<${options.unsubscribeUrl}>`];
  if (options.mailto) {
    targets.push(
      `<mailto:${options.mailto}?subject=${encodeURIComponent(`unsubscribe ${options.messageId}`)}>`,
    );
  }
  return {
    "List-Unsubscribe": targets.join(", "),
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
  };
}
