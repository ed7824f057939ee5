import type { Response, Router } from "express";
import type { ValidationIssue } from "@svc/core";
import { acceptEventBatch, type AcceptEventDeps, type BatchItemResult, type EventInput } from "@svc/engine";
import { principalOf } from "../auth/require-key";
import { fromAppError, problemAt, type ProblemInput } from "../http/problem";
import { sendJson } from "../http/send-json";
import { itemProblems } from "../http/validate-each";

// POST /v1/events/batch (docs/events.md "Many events in one request"): items the OpenAPI schema
// refused keep their 422 (validate-each.ts); the rest are accepted together by the engine. Each
// result is what POST /v1/events would have answered for that item.

const PATH = "/v1/events/batch";

type ItemResult = { status: 200 | 202; event: object } | { status: number; problem: object };

export function eventBatchRoute(router: Router, deps: AcceptEventDeps) {
  router.post(PATH, async (req, res) => {
    const items = (req.body as { events: unknown[] }).events;
    const refused = itemProblems(res);
    const valid = items.flatMap((_item, i) => (refused.has(i) ? [] : [i]));
    const accepted = await acceptEventBatch(
      deps,
      principalOf(res),
      valid.map((i) => items[i] as EventInput),
    );
    const problems = new Map(refused);
    const results: ItemResult[] = new Array(items.length);
    valid.forEach((index, k) => {
      const result = accepted[k]!;
      if (result.ok) results[index] = accepted202or200(result);
      else problems.set(index, relocated(fromAppError(result.error), index));
    });
    for (const [index, problem] of problems) {
      results[index] = { status: problem.status, problem: problemAt(problem, PATH) };
    }
    retryAfterOfRefusals(res, [...problems.values()]);
    const duplicates = results.filter((r) => r.status === 200).length;
    sendJson(res, 207, {
      accepted: results.length - duplicates - problems.size,
      duplicates,
      failed: problems.size,
      results,
    });
  });
}

function accepted202or200(result: Extract<BatchItemResult, { ok: true }>): ItemResult {
  return {
    status: result.duplicate ? 200 : 202,
    event: { ...result.event, duplicate: result.duplicate },
  };
}

/** An item's issues name their place in the batch: `body.name` becomes `body.events.<index>.name`. */
function relocated(problem: ProblemInput, index: number): ProblemInput {
  if (!problem.errors) return problem;
  const move = (loc: ValidationIssue["loc"]) =>
    loc[0] === "body" ? ["body", "events", index, ...loc.slice(1)] : loc;
  const errors = problem.errors.map((issue) => ({ ...issue, loc: move(issue.loc) }));
  const detail = errors.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; ");
  return { ...problem, errors, detail };
}

/** Items refused for a while (429) carry Retry-After; the response carries the longest. */
function retryAfterOfRefusals(res: Response, problems: ProblemInput[]): void {
  const seconds = problems.flatMap((p) => {
    const value = p.headers?.["Retry-After"];
    return value === undefined ? [] : [Number(value)];
  });
  if (seconds.length > 0) res.setHeader("Retry-After", String(Math.max(...seconds)));
}
