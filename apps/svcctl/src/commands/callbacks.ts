import { Command, Option } from "commander";
import { listCallbacks, retryCallback, type CallbackView } from "@svc/engine";
import { formatTable } from "../format-table";
import { parseLimit } from "../parse-options";
import type { Session } from "../session";

// `svcctl callbacks …`: the decision callbacks (docs/approvals.md "Failed callbacks"), straight in
// the database, through the same use cases as GET /v1/callbacks and POST /v1/callbacks/{id}/retry.

const STATUSES = ["pending", "delivered", "failed"] as const;

interface ListOptions {
  status?: (typeof STATUSES)[number];
  limit?: number;
  cursor?: string;
  json?: boolean;
}

export function callbacksCommand(parent: Command, s: Session): Command {
  const callbacks = parent
    .command("callbacks")
    .description("list decision callbacks (approval.decided) and retry failed ones");

  callbacks
    .command("list")
    .description("list callbacks, newest first")
    .addOption(new Option("--status <status>", "only callbacks in this status").choices(STATUSES))
    .option("--limit <n>", "callbacks per page, 1-500 (default 50)", parseLimit)
    .option("--cursor <cursor>", "continue after a previous page (printed as next_cursor)")
    .option("--json", "print the page as JSON: {items, next_cursor}")
    .addHelpText(
      "after",
      "\nExample: the callbacks that gave up after 10 tries\n  $ svcctl callbacks list --status failed",
    )
    .action(async (options: ListOptions) => {
      const page = await listCallbacks({ prisma: await s.prisma() }, options);
      if (options.json) {
        s.out(JSON.stringify(page, null, 2));
        return;
      }
      if (page.items.length === 0) {
        s.err(options.status ? `no ${options.status} callbacks` : "no callbacks");
        return;
      }
      const header = ["ID", "SUBJECT", "STATUS", "ATTEMPTS", "NEXT TRY", "CREATED", "LAST ERROR"];
      const rows = page.items.map((c) => [
        c.id,
        c.subject_id,
        c.status,
        String(c.attempts),
        c.next_attempt_at ?? "-",
        c.created_at,
        c.last_error ?? "-",
      ]);
      for (const line of formatTable([header, ...rows])) s.out(line);
      if (page.next_cursor) s.err(`more callbacks: svcctl callbacks list --cursor ${page.next_cursor}`);
    });

  callbacks
    .command("retry")
    .description("send a failed callback again: back to pending, tried now, then up to 10 tries")
    .argument("<id>", "the callback's id (cbk_…)")
    .option("--json", "print the callback as JSON")
    .addHelpText(
      "after",
      "\nOnly a failed callback can be retried (anything else exits 1). Example:\n  $ svcctl callbacks retry cbk_01HQ3Z8V5W9X2Y4B6C8D0E1F2G",
    )
    .action(async (id: string, options: { json?: boolean }) => {
      const queues = await s.queues(); // Redis first: an unreachable Redis exits 5 before any change
      const retried = await retryCallback(
        {
          prisma: await s.prisma(),
          queues,
          now: s.now,
          logger: {
            info: () => undefined,
            warn: (message) => s.err(`warning: ${message}`),
            error: (message) => s.err(`error: ${message}`),
          },
        },
        id,
      );
      if (options.json) s.out(JSON.stringify(retried, null, 2));
      else s.out(describeRetry(retried));
    });

  return callbacks;
}

function describeRetry(callback: CallbackView): string {
  const previous = callback.last_error ? ` (last error: ${callback.last_error})` : "";
  return `retrying ${callback.id} for ${callback.subject_id}: pending, next try now${previous}`;
}
