// Logs instead of sending (docs/providers.md, "console"): one JSON line per message, always accepted.
// It exists for development, but its lines end up in whatever log the process writes to, so no live
// link token is ever printed: links show with the token replaced (docs/decisions.md "Hostile input").
import { redactLinkTokens } from "@svc/core";
import { z } from "zod";
import { accepted, type Provider, type SendRequest } from "./provider";
import { parseSettings, type ProviderSetup } from "./settings";

export const consoleSettings = z.object({});

export function createConsoleProvider(setup: ProviderSetup): Provider {
  parseSettings(consoleSettings, setup);
  const stream = setup.context.stream ?? process.stdout;
  const now = setup.context.now;
  return {
    name: "console",
    async send(request: SendRequest) {
      stream.write(`${redactLinkTokens(JSON.stringify(consoleLine(request, now())))}\n`);
      return accepted();
    },
  };
}

// Links carry live tokens, so only whether they exist is shown (docs/providers.md, "console").
function consoleLine(request: SendRequest, at: Date) {
  return {
    at: at.toISOString(),
    provider: "console",
    id: request.messageId,
    channel: request.channel,
    to: request.to,
    recipient: request.recipient.external_id,
    category: request.category,
    importance: request.importance,
    content: request.content,
    data: request.data,
    has_unsubscribe_url: Boolean(request.unsubscribeUrl),
  };
}
