import { Command, Option } from "commander";
import type { Schemas } from "@svc/client";
import { MESSAGE_STATUSES } from "@svc/core";
import type { Session } from "../../session";
import { printPage, printRecord } from "../../output";
import { parseLimit } from "../../parse-options";
import { decisionBody, MESSAGE_FIELDS, withExample, withJson } from "./api-command";
import { getCommand } from "./get-command";

interface ListOptions {
  recipient?: string;
  status?: Schemas["MessageStatus"];
  agent?: string;
  eventId?: string;
  limit?: number;
  cursor?: string;
  json?: boolean;
}

/** `svcctl messages …`: read, cancel and decide messages (docs/messages.md, docs/approvals.md). */
export function messagesCommand(parent: Command, s: Session): Command {
  const messages = parent
    .command("messages")
    .description("list, read, cancel, approve and reject messages (over the HTTP API)");

  const list = messages
    .command("list")
    .description("list messages, newest first (GET /v1/messages)")
    .option("--recipient <external_id>", "only this person's")
    .addOption(new Option("--status <status>", "only messages in this status").choices(MESSAGE_STATUSES))
    .option("--agent <agent_key>", "only this agent's")
    .option("--event-id <id>", "only those an event made")
    .option("--limit <n>", "messages per page, 1-500 (default 50)", parseLimit)
    .option("--cursor <cursor>", "continue after a previous page (next_cursor)")
    .action(async (options: ListOptions) => {
      const api = s.api();
      const page = await api.call(
        api.client.GET("/v1/messages", {
          params: {
            query: {
              recipient: options.recipient,
              status: options.status,
              agent: options.agent,
              event_id: options.eventId,
              limit: options.limit,
              cursor: options.cursor,
            },
          },
        }),
      );
      printPage(
        s,
        options,
        page,
        [
          ["ID", (m) => m.id],
          ["STATUS", (m) => m.status],
          ["REASON", (m) => m.status_reason],
          ["RECIPIENT", (m) => m.recipient],
          ["CATEGORY", (m) => m.category],
          ["AGENT", (m) => m.agent],
          ["CREATED", (m) => m.created_at],
        ],
        (cursor) => `svcctl messages list --cursor ${cursor}`,
      );
    });
  withJson(list, "the page {items, next_cursor}");
  withExample(list, "$ svcctl messages list --status pending_approval --limit 20");

  getCommand(messages, s, {
    description: "read one message with its decisions and attempts (GET /v1/messages/{id})",
    argument: "the message's id (msg_…)",
    what: "the message",
    fields: [...MESSAGE_FIELDS, "attempts"],
    example: "$ svcctl messages get msg_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z --json | jq .status",
    read: (api, id) => api.call(api.client.GET("/v1/messages/{id}", { params: { path: { id } } })),
  });

  const cancel = messages
    .command("cancel")
    .description("cancel a queued message (POST /v1/messages/{id}/cancel); exit 1 when it is not queued")
    .argument("<id>", "the message's id (msg_…)")
    .action(async (id: string, options: { json?: boolean }) => {
      const api = s.api();
      const message = await api.call(
        api.client.POST("/v1/messages/{id}/cancel", { params: { path: { id } } }),
      );
      printRecord(s, options, message, MESSAGE_FIELDS);
    });
  withJson(cancel, "the message");
  withExample(cancel, "$ svcctl messages cancel msg_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z");

  for (const [verb, effect] of [
    ["approve", "send a held message (its policy is checked again)"],
    ["reject", "cancel a held message; it is never sent"],
  ] as const) {
    const decide = messages
      .command(verb)
      .description(`${effect} (POST /v1/messages/{id}/${verb}; keys not bound to an agent)`)
      .argument("<id>", "the held message's id (msg_…)")
      .option("--reason <text>", "why (kept as the decision's comment)")
      .action(async (id: string, options: { reason?: string; json?: boolean }) => {
        const api = s.api();
        const params = { path: { id } };
        const body = decisionBody(options.reason);
        const message = await api.call(
          verb === "approve"
            ? api.client.POST("/v1/messages/{id}/approve", { params, body })
            : api.client.POST("/v1/messages/{id}/reject", { params, body }),
        );
        printRecord(s, options, message, MESSAGE_FIELDS);
      });
    withJson(decide, "the message");
    withExample(
      decide,
      `$ svcctl messages ${verb} msg_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z --reason "checked with the customer"`,
    );
  }
  return messages;
}
