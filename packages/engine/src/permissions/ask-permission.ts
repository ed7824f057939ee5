import {
  decideByRules,
  fitToolCall,
  parsePermissionRule,
  ruleVerdict,
  toolCallBody,
  toolCallTitle,
  verdictOfApproval,
  type ApprovalOutcomeView,
  type OnTimeout,
  type PermissionRule,
  type PermissionVerdict,
  type RuleSet,
  type ToolCallRecord,
} from "@svc/core";
import { MAX_METADATA_BYTES, type ApprovalInput } from "../approvals/approval-requests";

// Asking a person before a coding agent's tool call runs (docs/hooks.md "Asking a person"), one
// sequence for `svcctl hook --ask` (over HTTP) and POST /v1/hooks/claude-code/permission (inside
// the API): local rules first (deny wins; a match asks nobody), then the secret check, then the
// session's grants, then an approval request for the reviewers and a wait for its decision. Nobody
// decided in time: the request is withdrawn (a late tap on a link says so) and `onTimeout` answers.

export interface PermissionPorts {
  /** The call with every secret masked (docs/hooks.md "Secrets never travel"). */
  mask(call: ToolCallRecord): Promise<ToolCallRecord>;
  /** What reviewers allowed for the rest of the session, with who allowed it. */
  sessionGrants(sessionId: string): Promise<{ rules: string[]; granted_by: string }[]>;
  createRequest(input: ApprovalInput): Promise<{ id: string }>;
  /** The request once it is no longer pending, or as it stands at `until` (or when told to stop). */
  waitForDecision(id: string, until: Date): Promise<ApprovalOutcomeView>;
  /** Withdraws the request; when somebody decided first, the request as decided. */
  withdraw(id: string): Promise<ApprovalOutcomeView>;
}

export interface AskPermissionOptions {
  reviewers: string[];
  timeoutSeconds: number;
  onTimeout: OnTimeout;
  /** `--allow` / `--deny` and the rules file: decide before anything leaves the machine. */
  rules?: RuleSet;
  /** For `~/` rules. */
  home?: string | null;
  now: () => Date;
}

export interface PermissionAnswer {
  verdict: PermissionVerdict;
  /** What decided: a local rule, a session grant, a reviewer, or nobody in time. */
  by: "rule" | "session" | "reviewer" | "timeout";
  approvalId?: string;
}

const MIN_EXPIRY_SECONDS = 60;

function parseGranted(texts: readonly string[]): PermissionRule[] {
  return texts.flatMap((text) => {
    try {
      return [parsePermissionRule(text)];
    } catch {
      return [];
    }
  });
}

export async function askPermission(
  ports: PermissionPorts,
  call: ToolCallRecord,
  options: AskPermissionOptions,
): Promise<PermissionAnswer> {
  if (options.rules) {
    const local = decideByRules(options.rules, call, { home: options.home });
    if (local) return { verdict: ruleVerdict(local.decision, local.rules), by: "rule" };
  }
  const masked = await ports.mask(call);
  if (masked.session_id !== null) {
    for (const grant of await ports.sessionGrants(masked.session_id)) {
      const allowed = decideByRules({ allow: parseGranted(grant.rules), deny: [] }, masked);
      if (allowed) return { verdict: ruleVerdict("allow", allowed.rules, grant.granted_by), by: "session" };
    }
  }
  const deadline = new Date(options.now().getTime() + options.timeoutSeconds * 1000);
  const request = await ports.createRequest({
    title: toolCallTitle(masked),
    body: toolCallBody(masked),
    reviewers: options.reviewers,
    importance: "high",
    // The request outlives the wait a little at most; a wait shorter than a minute withdraws it.
    expires_in_seconds: Math.max(MIN_EXPIRY_SECONDS, Math.ceil(options.timeoutSeconds)),
    metadata: { tool_call: fitToolCall(masked, MAX_METADATA_BYTES) },
  });
  let outcome: ApprovalOutcomeView;
  try {
    outcome = await ports.waitForDecision(request.id, deadline);
  } catch (error) {
    await ports.withdraw(request.id).catch(() => undefined);
    throw error;
  }
  if (outcome.status === "pending") outcome = await ports.withdraw(request.id);
  const verdict = verdictOfApproval(outcome, options);
  const decided = outcome.status === "approved" || outcome.status === "rejected";
  return { verdict, by: decided ? "reviewer" : "timeout", approvalId: request.id };
}
