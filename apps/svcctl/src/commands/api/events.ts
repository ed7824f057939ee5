import { Command, InvalidArgumentError } from "commander";
import type { Session } from "../../session";
import { printRecord } from "../../output";
import { CliError } from "../../cli-error";
import { EXIT } from "../../exit-codes";
import { parseJsonObject, withExample, withJson } from "./api-command";
import { postEventsFromFile } from "./events-file";

interface PostOptions {
  recipient?: string;
  data?: Record<string, unknown>;
  idempotencyKey?: string;
  file?: string;
  batchSize: number;
  json?: boolean;
}

const MAX_BATCH = 1000;

function parseBatchSize(value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_BATCH)
    throw new InvalidArgumentError(`expected 1 to ${MAX_BATCH}.`);
  return n;
}

/** `svcctl events post`: POST /v1/events, or POST /v1/events/batch with --file (docs/events.md). */
export function eventsCommand(parent: Command, s: Session): Command {
  const events = parent.command("events").description("report events (over the HTTP API)");
  const post = events
    .command("post")
    .description(
      "report an event; rules decide who is told (POST /v1/events); with --file, many (POST /v1/events/batch)",
    )
    .argument("[name]", "event name, e.g. order.shipped")
    .option("-r, --recipient <external_id>", "the person the event is about")
    .option("-d, --data <json>", "event data, a JSON object", parseJsonObject)
    .option("--idempotency-key <key>", "a repeat with the same key and body reports nothing new")
    .option(
      "-f, --file <path>",
      "events to report, one JSON body of POST /v1/events per line (NDJSON; - reads stdin)",
    )
    .option("--batch-size <n>", "events per request with --file (1 to 1000)", parseBatchSize, 500)
    .action(async (name: string | undefined, options: PostOptions) => {
      if (options.file !== undefined) {
        if (name !== undefined || options.recipient || options.data || options.idempotencyKey) {
          throw new CliError(
            EXIT.usage,
            "--file takes each event from the file: give no name, --recipient, --data or --idempotency-key",
          );
        }
        return postEventsFromFile(s, options.file, options);
      }
      if (name === undefined || options.recipient === undefined) {
        throw new CliError(EXIT.usage, "give the event's name and --recipient, or --file");
      }
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
  withJson(post, "the accepted event (with --file: the summary)");
  withExample(
    post,
    `$ svcctl events post order.shipped -r ada -d '{"order": "A-1001"}' --idempotency-key ship-A-1001`,
    "$ svcctl events post --file events.ndjson",
  );
  return events;
}
