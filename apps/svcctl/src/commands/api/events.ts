import { Command } from "commander";
import type { Session } from "../../session";
import { printRecord } from "../../output";
import { parseJsonObject, withExample, withJson } from "./api-command";

interface PostOptions {
  recipient: string;
  data?: Record<string, unknown>;
  idempotencyKey?: string;
  json?: boolean;
}

/** `svcctl events post`: POST /v1/events (docs/events.md). */
export function eventsCommand(parent: Command, s: Session): Command {
  const events = parent.command("events").description("report events (over the HTTP API)");
  const post = events
    .command("post")
    .description("report an event; rules decide who is told (POST /v1/events)")
    .argument("<name>", "event name, e.g. order.shipped")
    .requiredOption("-r, --recipient <external_id>", "the person the event is about")
    .option("-d, --data <json>", "event data, a JSON object", parseJsonObject)
    .option("--idempotency-key <key>", "a repeat with the same key and body reports nothing new")
    .action(async (name: string, options: PostOptions) => {
      const api = s.api();
      const event = await api.call(
        api.client.POST("/v1/events", {
          body: {
            name,
            recipient: options.recipient,
            data: options.data,
            idempotency_key: options.idempotencyKey,
          },
        }),
      );
      printRecord(s, options, event, [
        "id",
        "name",
        "status",
        "recipient",
        "agent",
        "duplicate",
        "created_at",
      ]);
    });
  withJson(post, "the accepted event");
  withExample(
    post,
    `$ svcctl events post order.shipped -r ada -d '{"order": "A-1001"}' --idempotency-key ship-A-1001`,
  );
  return events;
}
