import { Command } from "commander";
import type { Session } from "../../session";
import { printRecord } from "../../output";
import {
  collectList,
  importanceOption,
  MESSAGE_FIELDS,
  parseJsonObject,
  withExample,
  withJson,
} from "./api-command";

interface SendOptions {
  template: string;
  category: string;
  channel: string[];
  data?: Record<string, unknown>;
  importance?: "low" | "normal" | "high" | "critical";
  expiresAt?: string;
  idempotencyKey?: string;
  json?: boolean;
}

/** `svcctl send`: POST /v1/messages (docs/messages.md). */
export function sendCommand(parent: Command, s: Session): Command {
  const send = parent
    .command("send")
    .description("send a message to one person now (POST /v1/messages); the answer says what svc decided")
    .argument("<recipient>", "the person's external id")
    .requiredOption("-t, --template <key>", "template to render")
    .requiredOption("--category <key>", "category (its caps, quiet hours and unsubscribes apply)")
    .requiredOption(
      "--channel <name>",
      "channel to try, in order; repeat or comma-separate (email,sms)",
      collectList,
    )
    .option("-d, --data <json>", "template data, a JSON object", parseJsonObject)
    .addOption(importanceOption())
    .option("--expires-at <time>", "not sent after this instant (ISO 8601 with zone)")
    .option("--idempotency-key <key>", "a repeat with the same key and body returns the first message")
    .action(async (recipient: string, options: SendOptions) => {
      const api = s.api();
      const message = await api.call(
        api.client.POST("/v1/messages", {
          body: {
            recipient,
            template: options.template,
            category: options.category,
            channels: options.channel,
            data: options.data,
            importance: options.importance,
            expires_at: options.expiresAt,
            idempotency_key: options.idempotencyKey,
          },
        }),
      );
      printRecord(s, options, message, MESSAGE_FIELDS);
    });
  withJson(send, "the message");
  return withExample(
    send,
    `$ svcctl send ada -t order-shipped --category transactional --channel email,sms -d '{"order": "A-1001"}'`,
  );
}
