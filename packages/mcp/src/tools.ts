import type { ApiResult, OpenApiDocumentJson, Schemas } from "@svc/client";
import { componentSchema, inlineSchema, type JsonSchema } from "./json-schema";
import type { SvcApi } from "./svc-api";

// The four tools (docs/mcp.md "Tools"), shared by /mcp and `svcctl mcp`. Each names the REST
// operations it stands for: a key sees and may call a tool only when it may call every one of
// them. Schemas come from the OpenAPI document; only the descriptions below are written here,
// for the agent reading them.

interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface SvcTool {
  name: string;
  title: string;
  description: string;
  /** operationIds of the REST twins; access to all of them is needed. */
  operations: string[];
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  call(api: SvcApi, args: Record<string, unknown>): Promise<ApiResult<unknown>>;
}

const SEND_MESSAGE = `Send a message to one person (a recipient, by external id) through svc.

svc decides whether and when the person is told: their preferences and unsubscribes, quiet hours, the category's frequency caps, your agent's per-person budget and approval rules all apply, and it delivers on the first reachable channel of \`channels\`. Use it when a person should be told something; to ask a person to decide on an action, use request_approval instead. Pass an \`idempotency_key\` (unique per message you mean to send) so that a retry never sends twice.

The result is the stored message; read its \`status\`:
- queued: accepted, delivered at \`send_at\` (quiet hours may move it later).
- pending_approval: held until a reviewer approves it; nothing is sent before. Do not send it again.
- suppressed: not sent; \`status_reason\` says why (e.g. unsubscribed, frequency_cap, agent_budget, quiet hours past expires_at, fatigue).
- failed: the template could not be rendered (\`status_reason\` holds the error).

Errors (isError, with status, title and detail): 403 your key may not send in that category; 422 an argument is wrong, e.g. no such person, template or channel (the detail names it); 409 the idempotency_key was used for a different message; 429 too many of your messages wait for approval (retry later).`;

const REVIEW_MESSAGE = `Approve or reject a message that waits for a person's approval (status pending_approval), on behalf of the person using this key. Only keys not bound to an agent see this tool: an agent never reviews messages.

- approve: the message's delivery policy is checked again and it is normally \`queued\` and sent; should a check stop it, the message shows why (e.g. suppressed / unsubscribed). \`reason\` is optional.
- reject: the message becomes \`cancelled\` with status_reason \`rejected\` (or \`rejected: <reason>\`); it is never sent.

The result is the message after the decision. Errors: 404 no such message; 409 "Invalid state" when it no longer waits (already decided, cancelled or sent), with detail \`expired\` once its review deadline (approval_expires_at) has passed.`;

const REQUEST_APPROVAL = `Ask one or more people (reviewers, by external id) to decide on an action that happens outside svc, such as a refund, a deploy or deleting data. Each reviewer is told through svc (with a personal review link when the service has one). Use it before an action that needs a person's consent; do not take the action until the answer is approved.

The result is the request with \`status: pending\`; keep its \`id\` and call get_approval with it until the status is no longer pending. \`expires_in_seconds\` (default 3600) bounds the wait; \`metadata\` comes back with the decision.

Errors: 403 a reviewer your agent may not ask (the detail lists them); 422 an argument is out of bounds; 429 too many of your items wait for a decision (retry later).`;

const GET_APPROVAL = `Read an approval request made with request_approval, to learn the decision.

Pass \`wait_seconds\` (up to 30) to wait for the decision: the result comes as soon as a person decides, or with \`status: pending\` when the wait ends; then call again. Without it the request is read as it stands.

\`status\`:
- pending: nobody has decided yet; call again with wait_seconds (or, without it, not more often than every few seconds).
- approved: go ahead with the action; \`decided_by\` is who approved, \`comment\` their reason.
- rejected: do not take the action; \`comment\` may say why.
- expired: nobody decided before \`expires_at\`; do not take the action.
- withdrawn: the asking agent took the request back; do not take the action.

Errors: 403 the request belongs to another sender (agents read only their own); 404 no such request; 429 too many waiting reads at once (retry shortly).`;

const DECISIONS = ["approve", "reject"] as const;

/** The four tools, their schemas drawn from `doc`. */
export function svcTools(doc: OpenApiDocumentJson): SvcTool[] {
  const resourceId = componentSchema(doc, "ResourceId");
  const decision = componentSchema(doc, "Decision") as { properties: { reason: unknown } };
  return [
    {
      name: "send_message",
      title: "Send a message",
      description: SEND_MESSAGE,
      operations: ["sendMessage"],
      inputSchema: componentSchema(doc, "MessageSend"),
      outputSchema: componentSchema(doc, "Message"),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
      call: (api, args) => api.sendMessage(args as Schemas["MessageSend"]),
    },
    {
      name: "review_message",
      title: "Approve or reject a held message",
      description: REVIEW_MESSAGE,
      operations: ["approveMessage", "rejectMessage"],
      inputSchema: {
        type: "object",
        additionalProperties: false,
        required: ["message_id", "decision"],
        properties: {
          message_id: { ...resourceId, description: "The held message's id (`msg_…`)." },
          decision: {
            type: "string",
            enum: [...DECISIONS],
            description: "`approve` sends it (after the policy check), `reject` cancels it.",
          },
          reason: inlineSchema(doc, decision.properties.reason),
        },
      },
      outputSchema: componentSchema(doc, "Message"),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      call: (api, args) => {
        const {
          message_id,
          decision: verdict,
          reason,
        } = args as {
          message_id: string;
          decision: (typeof DECISIONS)[number];
          reason?: string;
        };
        const body = reason === undefined ? {} : { reason };
        return verdict === "approve"
          ? api.approveMessage(message_id, body)
          : api.rejectMessage(message_id, body);
      },
    },
    {
      name: "request_approval",
      title: "Ask people to approve an action",
      description: REQUEST_APPROVAL,
      operations: ["createApproval"],
      inputSchema: componentSchema(doc, "ApprovalCreate"),
      outputSchema: componentSchema(doc, "Approval"),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
      call: (api, args) => api.createApproval(args as Schemas["ApprovalCreate"]),
    },
    {
      name: "get_approval",
      title: "Read an approval request",
      description: GET_APPROVAL,
      operations: ["getApproval"],
      inputSchema: {
        type: "object",
        additionalProperties: false,
        required: ["approval_id"],
        properties: {
          approval_id: { ...resourceId, description: "The request's id (`apr_…`)." },
          wait_seconds: {
            ...componentSchema(doc, "WaitSeconds"),
            description: "Wait up to this many seconds (at most 30) for a decision before answering.",
          },
        },
      },
      outputSchema: componentSchema(doc, "Approval"),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      call: (api, args) => {
        const { approval_id, wait_seconds } = args as { approval_id: string; wait_seconds?: number };
        return api.getApproval(approval_id, wait_seconds);
      },
    },
  ];
}
