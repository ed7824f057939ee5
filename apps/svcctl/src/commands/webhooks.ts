import { Command, Option } from "commander";
import {
  createWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  retryWebhookDelivery,
  type WebhookDeliveryView,
} from "@svc/engine";
import { formatTable } from "../format-table";
import { parseLimit } from "../parse-options";
import type { Session } from "../session";

// `svcctl webhooks …`: status webhooks (docs/webhooks.md), straight in the database, through the
// same use cases as /v1/webhooks…: list and create endpoints, read an endpoint's deliveries, retry
// a failed delivery.

const STATUSES = ["pending", "succeeded", "failed"] as const;

interface PageOptions {
  limit?: number;
  cursor?: string;
  json?: boolean;
}

export function webhooksCommand(parent: Command, s: Session): Command {
  const webhooks = parent
    .command("webhooks")
    .description("status webhooks: list and create endpoints, their deliveries, retry failed ones");
  const logger = {
    info: () => undefined,
    warn: (message: string) => s.err(`warning: ${message}`),
    error: (message: string) => s.err(`error: ${message}`),
  };

  webhooks
    .command("list")
    .description("list webhook endpoints, newest first")
    .option("--limit <n>", "endpoints per page, 1-500 (default 50)", parseLimit)
    .option("--cursor <cursor>", "continue after a previous page (printed as next_cursor)")
    .option("--json", "print the page as JSON: {items, next_cursor}")
    .action(async (options: PageOptions) => {
      const page = await listWebhookEndpoints({ prisma: await s.prisma() }, options);
      if (options.json) {
        s.out(JSON.stringify(page, null, 2));
        return;
      }
      if (page.items.length === 0) {
        s.err("no webhook endpoints");
        return;
      }
      const header = ["ID", "URL", "EVENTS", "ENABLED", "FAILING SINCE"];
      const rows = page.items.map((e) => [
        e.id,
        e.url,
        e.events.join(","),
        e.enabled ? "yes" : `no${e.disabled_reason ? ` (${e.disabled_reason})` : ""}`,
        e.failing_since ?? "-",
      ]);
      for (const line of formatTable([header, ...rows])) s.out(line);
      if (page.next_cursor) s.err(`more endpoints: svcctl webhooks list --cursor ${page.next_cursor}`);
    });

  webhooks
    .command("create")
    .description("create an endpoint; prints its secret, which is shown only this once")
    .argument("<url>", "where to POST events (https://)")
    .requiredOption(
      "--events <filters>",
      "comma-separated event types, families (message.*) or *",
      (value: string) =>
        value
          .split(",")
          .map((part) => part.trim())
          .filter((part) => part.length > 0),
    )
    .option("--description <text>", "what the endpoint is for")
    .option("--disabled", "create it disabled")
    .option("--json", "print the endpoint as JSON, secret included")
    .addHelpText(
      "after",
      "\nExample:\n  $ svcctl webhooks create https://crm.example.com/svc --events 'message.failed,recipient.*'",
    )
    .action(
      async (
        url: string,
        options: { events: string[]; description?: string; disabled?: boolean; json?: boolean },
      ) => {
        const created = await createWebhookEndpoint(
          { prisma: await s.prisma(), config: s.config(), now: s.now },
          {
            url,
            events: options.events,
            ...(options.description !== undefined ? { description: options.description } : {}),
            ...(options.disabled ? { enabled: false } : {}),
          },
        );
        if (options.json) {
          s.out(JSON.stringify(created, null, 2));
          return;
        }
        s.out(`created ${created.id} for ${created.url} (${created.events.join(", ")})`);
        s.out(`secret: ${created.secret}`);
        s.err("the secret is shown only now; keep it where your receiver can read it");
      },
    );

  webhooks
    .command("deliveries")
    .description("list an endpoint's deliveries, newest first")
    .argument("<endpoint>", "the endpoint's id (whk_…)")
    .addOption(new Option("--status <status>", "only deliveries in this status").choices(STATUSES))
    .option("--limit <n>", "deliveries per page, 1-500 (default 50)", parseLimit)
    .option("--cursor <cursor>", "continue after a previous page (printed as next_cursor)")
    .option("--json", "print the page as JSON: {items, next_cursor}")
    .action(async (endpointId: string, options: PageOptions & { status?: (typeof STATUSES)[number] }) => {
      const page = await listWebhookDeliveries({ prisma: await s.prisma() }, endpointId, options);
      if (options.json) {
        s.out(JSON.stringify(page, null, 2));
        return;
      }
      if (page.items.length === 0) {
        s.err(options.status ? `no ${options.status} deliveries` : "no deliveries");
        return;
      }
      const header = ["ID", "EVENT", "TYPE", "STATUS", "ATTEMPTS", "CODE", "NEXT TRY", "LAST ERROR"];
      const rows = page.items.map((d) => [
        d.id,
        d.event_id,
        d.type,
        d.status,
        String(d.attempts),
        d.last_status_code === null ? "-" : String(d.last_status_code),
        d.next_attempt_at ?? "-",
        d.last_error ?? "-",
      ]);
      for (const line of formatTable([header, ...rows])) s.out(line);
      if (page.next_cursor)
        s.err(`more deliveries: svcctl webhooks deliveries ${endpointId} --cursor ${page.next_cursor}`);
    });

  webhooks
    .command("retry")
    .description("send a failed delivery again: back to pending, tried now, with the same id")
    .argument("<endpoint>", "the endpoint's id (whk_…)")
    .argument("<delivery>", "the delivery's id (whd_…)")
    .option("--json", "print the delivery as JSON")
    .action(async (endpointId: string, deliveryId: string, options: { json?: boolean }) => {
      const queues = await s.queues(); // Redis first: an unreachable Redis exits before any change
      const retried = await retryWebhookDelivery(
        { prisma: await s.prisma(), queues, now: s.now, logger },
        endpointId,
        deliveryId,
      );
      if (options.json) s.out(JSON.stringify(retried, null, 2));
      else s.out(describeRetry(retried));
    });

  return webhooks;
}

function describeRetry(delivery: WebhookDeliveryView): string {
  const previous = delivery.last_error ? ` (last error: ${delivery.last_error})` : "";
  return `retrying ${delivery.id} (${delivery.type}, ${delivery.event_id}): pending, next try now${previous}`;
}
