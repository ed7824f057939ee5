import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { Command, InvalidArgumentError, Option } from "commander";
import type { Schemas } from "@svc/client";
import type { Session } from "../../session";
import { printPage, printRecord, wantsJson } from "../../output";
import { parseLimit } from "../../parse-options";
import { collectList, importanceOption, parseJsonObject, withExample, withJson } from "./api-command";
import { getCommand } from "./get-command";
import { isFinished, progressLine, recentRate, type ProgressSample } from "./broadcast-progress";

// `svcctl broadcasts …` over the HTTP API (docs/broadcasts.md "svcctl").

const STATUSES = ["draft", "scheduled", "running", "paused", "completed", "cancelled", "failed"] as const;
const ACTIONS = [
  ["start", "start a draft: running now, or scheduled until its send_at"],
  ["pause", "pause a scheduled or running broadcast (no new message within a second)"],
  ["resume", "resume a paused broadcast where it stopped"],
  ["cancel", "cancel it; its queued messages become cancelled (broadcast cancelled)"],
] as const;

const BROADCAST_FIELDS = [
  "id",
  "name",
  "status",
  "status_reason",
  "template",
  "category",
  "channels",
  "audience",
  "send_at",
  "rate_per_second",
  "total",
  "processed",
  "skipped",
  "counts",
  "started_at",
  "completed_at",
];

interface CreateOptions {
  name: string;
  template: string;
  category: string;
  channel: string[];
  importance?: Schemas["Importance"];
  data?: Record<string, unknown>;
  recipient?: string[];
  recipientsFile?: string;
  filter?: Record<string, unknown>;
  sendAt?: string;
  rate?: number;
  json?: boolean;
}

function parseRate(value: string): number {
  const rate = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(rate) || rate < 1) throw new InvalidArgumentError("expected a whole number ≥ 1.");
  return rate;
}

/** One external id a line (blank lines ignored); `-` reads standard input. */
function readIds(file: string): string[] {
  const text = readFileSync(file === "-" ? 0 : file, "utf8");
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

function audienceOf(options: CreateOptions): Schemas["BroadcastAudience"] {
  const kinds = [options.recipient, options.recipientsFile, options.filter].filter((x) => x !== undefined);
  if (kinds.length !== 1)
    throw new InvalidArgumentError("give exactly one audience: --recipient, --recipients-file or --filter.");
  if (options.filter) return { filter: options.filter };
  return { recipients: options.recipient ?? readIds(options.recipientsFile!) };
}

export function broadcastsCommand(parent: Command, s: Session): Command {
  const broadcasts = parent
    .command("broadcasts")
    .description("create, list, start, pause, resume, cancel and watch broadcasts (over the HTTP API)");

  const create = broadcasts
    .command("create")
    .description("create a broadcast as a draft (POST /v1/broadcasts)")
    .requiredOption("--name <text>", "what it is called")
    .requiredOption("-t, --template <key>", "template key")
    .requiredOption("--category <key>", "category key")
    .requiredOption("--channel <name>", "channel, in fallback order (repeat or comma-separate)", collectList)
    .addOption(importanceOption())
    .option("-d, --data <json>", "template data, the same for everyone", parseJsonObject)
    .option("-r, --recipient <external_id>", "a person (repeat or comma-separate)", collectList)
    .option("--recipients-file <path>", "external ids, one a line (- for standard input)")
    .option("--filter <json>", "JSON Logic over {recipient: {...}} instead of a list", parseJsonObject)
    .option("--send-at <time>", "start no earlier than this ISO 8601 time (scheduled until then)")
    .option("--rate <n>", "recipients per second across every worker", parseRate)
    .action(async (options: CreateOptions) => {
      const api = s.api({ timeoutMs: 60_000 });
      const body: Schemas["BroadcastWrite"] = {
        name: options.name,
        template: options.template,
        category: options.category,
        channels: options.channel,
        audience: audienceOf(options),
        ...(options.importance && { importance: options.importance }),
        ...(options.data && { data: options.data }),
        ...(options.sendAt && { send_at: options.sendAt }),
        ...(options.rate && { rate_per_second: options.rate }),
      };
      const created = await api.call(api.client.POST("/v1/broadcasts", { body }));
      printRecord(s, options, created, BROADCAST_FIELDS);
    });
  withJson(create, "the broadcast");
  withExample(
    create,
    "$ svcctl broadcasts create --name 'Winter sale' -t winter-sale --category marketing \\",
    "    --channel email --recipients-file customers.txt --rate 50",
  );

  const list = broadcasts
    .command("list")
    .description("list broadcasts, newest first (GET /v1/broadcasts)")
    .addOption(new Option("--status <status>", "only broadcasts in this status").choices(STATUSES))
    .option("--limit <n>", "broadcasts per page, 1-500 (default 50)", parseLimit)
    .option("--cursor <cursor>", "continue after a previous page (next_cursor)")
    .action(
      async (options: {
        status?: Schemas["BroadcastStatus"];
        limit?: number;
        cursor?: string;
        json?: boolean;
      }) => {
        const api = s.api();
        const page = await api.call(
          api.client.GET("/v1/broadcasts", {
            params: { query: { status: options.status, limit: options.limit, cursor: options.cursor } },
          }),
        );
        printPage(
          s,
          options,
          page,
          [
            ["ID", (b) => b.id],
            ["NAME", (b) => b.name],
            ["STATUS", (b) => b.status],
            ["PROCESSED", (b) => `${b.processed}/${b.total ?? "?"}`],
            ["CREATED", (b) => b.created_at],
          ],
          (cursor) => `svcctl broadcasts list --cursor ${cursor}`,
        );
      },
    );
  withJson(list, "the page {items, next_cursor}");
  withExample(list, "$ svcctl broadcasts list --status running");

  getCommand(broadcasts, s, {
    description: "read a broadcast with its progress (GET /v1/broadcasts/{id})",
    argument: "the broadcast's id (brd_…)",
    what: "the broadcast",
    fields: BROADCAST_FIELDS,
    example: "$ svcctl broadcasts get brd_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z --json | jq .counts",
    read: (api, id) => api.call(api.client.GET("/v1/broadcasts/{id}", { params: { path: { id } } })),
  });

  for (const [action, effect] of ACTIONS) {
    const command = broadcasts
      .command(action)
      .description(`${effect} (POST /v1/broadcasts/{id}/${action}); exit 1 when its state does not allow it`)
      .argument("<id>", "the broadcast's id (brd_…)")
      .action(async (id: string, options: { json?: boolean }) => {
        const api = s.api();
        const params = { path: { id } };
        const changed = await api.call(
          action === "start"
            ? api.client.POST("/v1/broadcasts/{id}/start", { params })
            : action === "pause"
              ? api.client.POST("/v1/broadcasts/{id}/pause", { params })
              : action === "resume"
                ? api.client.POST("/v1/broadcasts/{id}/resume", { params })
                : api.client.POST("/v1/broadcasts/{id}/cancel", { params }),
        );
        printRecord(s, options, changed, BROADCAST_FIELDS);
      });
    withJson(command, "the broadcast");
    withExample(command, `$ svcctl broadcasts ${action} brd_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z`);
  }

  const watch = broadcasts
    .command("watch")
    .description("draw its progress until it ends: processed of total, rate, time left, counts per status")
    .argument("<id>", "the broadcast's id (brd_…)")
    .option("--interval <ms>", "milliseconds between reads (default 1000)", parseRate)
    .action(async (id: string, options: { interval?: number; json?: boolean }) => {
      const api = s.api();
      const samples: ProgressSample[] = [];
      // On a terminal the line is redrawn in place; piped, each read is one line (JSON with --json).
      const inPlace = !wantsJson(s, options);
      for (;;) {
        const broadcast = await api.call(api.client.GET("/v1/broadcasts/{id}", { params: { path: { id } } }));
        samples.push({ at: s.now().getTime(), processed: broadcast.processed });
        if (samples.length > 20) samples.shift();
        if (options.json) s.out(JSON.stringify(broadcast));
        else {
          const line = progressLine(broadcast, recentRate(samples));
          if (inPlace) s.io.stdout.write(`\r\x1b[2K${line}`);
          else s.out(line);
        }
        if (isFinished(broadcast.status)) break;
        await sleep(options.interval ?? 1_000);
      }
      if (inPlace) s.io.stdout.write("\n");
    });
  withJson(watch, "each read of the broadcast, one JSON line each");
  withExample(watch, "$ svcctl broadcasts watch brd_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z");
  return broadcasts;
}
