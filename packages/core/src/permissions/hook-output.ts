import type { PermissionHook } from "./tool-call";

// What `svcctl hook --ask` and POST /v1/hooks/claude-code/permission answer Claude Code (docs/hooks.md
// "What Claude Code is told"), in the shapes of its hooks reference:
//   PreToolUse        {"hookSpecificOutput": {"hookEventName": "PreToolUse",
//                       "permissionDecision": "allow"|"deny"|"ask", "permissionDecisionReason": "…"}}
//   PermissionRequest {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
//                       "decision": {"behavior": "allow"|"deny", "message": "…"}}}
// A PermissionRequest hook has no "ask": it answers nothing, and Claude Code shows its own dialog.

export type PermissionDecision = "allow" | "deny" | "ask";

export interface PermissionVerdict {
  decision: PermissionDecision;
  /** Who decided and their comment (shown to Claude on deny, to the person otherwise). */
  reason: string;
}

export type PermissionHookOutput = Record<string, unknown>;

/** The JSON to print (or answer over HTTP); null for PermissionRequest + ask (say nothing). */
export function permissionHookOutput(
  hook: PermissionHook,
  verdict: PermissionVerdict,
): PermissionHookOutput | null {
  if (hook === "PreToolUse") {
    return {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: verdict.decision,
        permissionDecisionReason: verdict.reason,
      },
    };
  }
  if (verdict.decision === "ask") return null;
  return {
    hookSpecificOutput: {
      hookEventName: "PermissionRequest",
      decision: { behavior: verdict.decision, message: verdict.reason },
    },
  };
}

/** What an approval request reads like to the hook (the fields of GET /v1/approvals/{id} it uses). */
export interface ApprovalOutcomeView {
  status: string;
  decided_by: string | null;
  comment: string | null;
  session_grant?: { rules: string[] } | null;
}

export type OnTimeout = "deny" | "ask";

/** `link:ada` → `ada`; a key's name stays as it is. */
export const deciderName = (decidedBy: string | null): string =>
  decidedBy === null ? "nobody" : decidedBy.startsWith("link:") ? decidedBy.slice("link:".length) : decidedBy;

const withComment = (sentence: string, comment: string | null) =>
  comment && comment.trim() !== "" ? `${sentence}: ${comment.trim()}` : sentence;

/**
 * The verdict for a request as it stands: approved → allow, rejected → deny (the comment passed
 * on), anything else (still pending when the wait ended, expired, withdrawn) → `onTimeout`.
 */
export function verdictOfApproval(
  approval: ApprovalOutcomeView,
  options: { onTimeout: OnTimeout; timeoutSeconds: number },
): PermissionVerdict {
  const by = deciderName(approval.decided_by);
  if (approval.status === "approved") {
    const grant = approval.session_grant?.rules ?? [];
    const sentence =
      grant.length > 0 ? `Allowed for this session by ${by} (${grant.join(", ")})` : `Allowed by ${by}`;
    return { decision: "allow", reason: withComment(sentence, approval.comment) };
  }
  if (approval.status === "rejected")
    return { decision: "deny", reason: withComment(`Denied by ${by}`, approval.comment) };
  return timeoutVerdict(options);
}

export function timeoutVerdict(options: { onTimeout: OnTimeout; timeoutSeconds: number }): PermissionVerdict {
  const sentence = `No decision from a reviewer within ${options.timeoutSeconds} s`;
  return options.onTimeout === "ask"
    ? { decision: "ask", reason: `${sentence}; asking here instead` }
    : { decision: "deny", reason: `${sentence}; denied` };
}

/** A local rule or a session grant decided without asking anybody. */
export function ruleVerdict(
  decision: "allow" | "deny",
  rules: readonly string[],
  grantedBy?: string | null,
): PermissionVerdict {
  if (grantedBy !== undefined) {
    return {
      decision,
      reason: `Allowed for this session by ${deciderName(grantedBy)} (${rules.join(", ")})`,
    };
  }
  const noun = rules.length === 1 ? "rule" : "rules";
  return {
    decision,
    reason: `${decision === "allow" ? "Allowed" : "Denied"} by the local ${noun} ${rules.join(", ")}`,
  };
}
