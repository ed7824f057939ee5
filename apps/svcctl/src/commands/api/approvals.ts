import { Command, Option } from "commander";
import type { Schemas } from "@svc/client";
import type { Session } from "../../session";
import { printPage, printRecord } from "../../output";
import { parseLimit } from "../../parse-options";
import {
  APPROVAL_FIELDS,
  collectList,
  decisionBody,
  importanceOption,
  parseJsonObject,
  parseSeconds,
  withExample,
  withJson,
} from "./api-command";
import { getCommand } from "./get-command";

const STATUSES = ["pending", "approved", "rejected", "expired"] as const;

interface CreateOptions {
  title: string;
  reviewer: string[];
  body?: string;
  importance?: Schemas["Importance"];
  expiresIn?: number;
  metadata?: Record<string, unknown>;
  json?: boolean;
}

/** `svcctl approvals …`: approval requests (docs/approvals.md "Approval requests"). */
export function approvalsCommand(parent: Command, s: Session): Command {
  const approvals = parent
    .command("approvals")
    .description("ask people to decide on an action, and read or decide the requests (over the HTTP API)");

  const create = approvals
    .command("create")
    .description("ask reviewers to decide (POST /v1/approvals); each is told through svc")
    .requiredOption("--title <text>", "what needs a decision")
    .requiredOption("--reviewer <external_id>", "who may decide; repeat or comma-separate", collectList)
    .option("--body <text>", "details for the reviewers")
    .addOption(importanceOption())
    .option(
      "--expires-in <seconds>",
      "how long it waits for a decision (60-604800, default 3600)",
      parseSeconds,
    )
    .option("--metadata <json>", "returned with the decision, a JSON object", parseJsonObject)
    .action(async (options: CreateOptions) => {
      const api = s.api();
      const request = await api.call(
        api.client.POST("/v1/approvals", {
          body: {
            title: options.title,
            reviewers: options.reviewer,
            body: options.body,
            importance: options.importance,
            expires_in_seconds: options.expiresIn,
            metadata: options.metadata,
          },
        }),
      );
      printRecord(s, options, request, APPROVAL_FIELDS);
    });
  withJson(create, "the request");
  withExample(
    create,
    `$ svcctl approvals create --title "Refund order A-1001 (€240)?" --reviewer ada,grace --expires-in 7200`,
  );

  getCommand(approvals, s, {
    description: "read a request; poll until its status is not pending (GET /v1/approvals/{id})",
    argument: "the request's id (apr_…)",
    what: "the request",
    fields: [...APPROVAL_FIELDS, "metadata"],
    example: "$ svcctl approvals get apr_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z --json | jq -r .status",
    read: (api, id) => api.call(api.client.GET("/v1/approvals/{id}", { params: { path: { id } } })),
  });

  const list = approvals
    .command("list")
    .description("list requests, newest first (GET /v1/approvals)")
    .addOption(new Option("--status <status>", "only requests in this status").choices(STATUSES))
    .option("--agent <agent_key>", "only this agent's")
    .option("--limit <n>", "requests per page, 1-500 (default 50)", parseLimit)
    .option("--cursor <cursor>", "continue after a previous page (next_cursor)")
    .action(
      async (options: {
        status?: (typeof STATUSES)[number];
        agent?: string;
        limit?: number;
        cursor?: string;
        json?: boolean;
      }) => {
        const api = s.api();
        const page = await api.call(
          api.client.GET("/v1/approvals", {
            params: {
              query: {
                status: options.status,
                agent: options.agent,
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
            ["ID", (a) => a.id],
            ["STATUS", (a) => a.status],
            ["TITLE", (a) => a.title],
            ["AGENT", (a) => a.agent],
            ["REVIEWERS", (a) => a.reviewers.join(",")],
            ["EXPIRES", (a) => a.expires_at],
            ["DECIDED BY", (a) => a.decided_by],
          ],
          (cursor) => `svcctl approvals list --cursor ${cursor}`,
        );
      },
    );
  withJson(list, "the page {items, next_cursor}");
  withExample(list, "$ svcctl approvals list --status pending");

  for (const verb of ["approve", "reject"] as const) {
    const decide = approvals
      .command(verb)
      .description(`${verb} a pending request (POST /v1/approvals/{id}/${verb}; keys not bound to an agent)`)
      .argument("<id>", "the request's id (apr_…)")
      .option("--reason <text>", "why (the request's comment, sent with the callback)")
      .action(async (id: string, options: { reason?: string; json?: boolean }) => {
        const api = s.api();
        const params = { path: { id } };
        const body = decisionBody(options.reason);
        const request = await api.call(
          verb === "approve"
            ? api.client.POST("/v1/approvals/{id}/approve", { params, body })
            : api.client.POST("/v1/approvals/{id}/reject", { params, body }),
        );
        printRecord(s, options, request, APPROVAL_FIELDS);
      });
    withJson(decide, "the request");
    withExample(decide, `$ svcctl approvals ${verb} apr_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z --reason "within policy"`);
  }
  return approvals;
}
