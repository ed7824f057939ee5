import jsonLogic from "json-logic-js";

// Operators json-logic-js 2.0.5 implements, minus `log` (it writes to the console). No custom
// operators are registered: json-logic-js keeps them in process-wide state.
export const CONDITION_OPERATORS: ReadonlySet<string> = new Set([
  "==",
  "===",
  "!=",
  "!==",
  ">",
  ">=",
  "<",
  "<=",
  "!!",
  "!",
  "%",
  "+",
  "-",
  "*",
  "/",
  "min",
  "max",
  "in",
  "cat",
  "substr",
  "merge",
  "var",
  "missing",
  "missing_some",
  "if",
  "?:",
  "and",
  "or",
  "filter",
  "map",
  "reduce",
  "all",
  "none",
  "some",
]);

export type ConditionCheck = { ok: true } | { ok: false; detail: string; loc: (string | number)[] };

export type ConditionResult = { ok: true; value: boolean } | { ok: false; detail: string };

/** What rule conditions see (docs/events.md, "Conditions"). */
export interface ConditionData {
  event: { id: string; name: string; created_at: string };
  data: Record<string, unknown>;
  recipient: {
    external_id: string;
    locale: string | null;
    timezone: string | null;
    region: string | null;
    attributes: Record<string, unknown>;
  };
}

function isOperation(node: unknown): node is Record<string, unknown> {
  return typeof node === "object" && node !== null && !Array.isArray(node) && Object.keys(node).length === 1;
}

// Same walk json-logic-js does: arrays element-wise, one-key objects are operations whose
// arguments are walked; other objects are literals it never descends into.
function findUnknownOperator(node: unknown, loc: (string | number)[]): ConditionCheck {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = findUnknownOperator(node[i], [...loc, i]);
      if (!found.ok) return found;
    }
    return { ok: true };
  }
  if (!isOperation(node)) return { ok: true };
  const [op] = Object.keys(node) as [string];
  if (!CONDITION_OPERATORS.has(op))
    return { ok: false, detail: `unknown operator: ${op}`, loc: [...loc, op] };
  return findUnknownOperator(node[op], [...loc, op]);
}

/** Write-time check of a rule (or agent approval) condition: `true`, `false` or one operation. */
export function validateCondition(logic: unknown): ConditionCheck {
  if (typeof logic === "boolean") return { ok: true };
  if (!isOperation(logic)) {
    return {
      ok: false,
      detail: "condition must be true, false or a JSON Logic operation (an object with exactly one key)",
      loc: [],
    };
  }
  try {
    return findUnknownOperator(logic, []);
  } catch (e) {
    // A pathologically deep tree overflows the stack here just as it would in json-logic-js.
    return { ok: false, detail: errorDetail(e), loc: [] };
  }
}

/** Evaluates to the JSON Logic truthiness of the result; never throws. */
export function evaluateCondition(logic: unknown, data: unknown): ConditionResult {
  const check = validateCondition(logic);
  if (!check.ok) return { ok: false, detail: check.detail };
  try {
    return { ok: true, value: jsonLogic.truthy(jsonLogic.apply(logic, data)) };
  } catch (e) {
    return { ok: false, detail: errorDetail(e) };
  }
}

function errorDetail(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.length > 0 ? message : "evaluation failed";
}

export interface ConditionEventInput {
  id: string;
  name: string;
  created_at: Date | string;
  data?: Record<string, unknown> | null;
}

export interface ConditionRecipientInput {
  external_id: string;
  locale?: string | null;
  timezone?: string | null;
  region?: string | null;
  attributes?: Record<string, unknown> | null;
}

/** Builds the documented condition object; anything else the caller holds stays out of reach. */
export function buildConditionData(
  event: ConditionEventInput,
  recipient: ConditionRecipientInput,
): ConditionData {
  return {
    event: {
      id: event.id,
      name: event.name,
      created_at: event.created_at instanceof Date ? event.created_at.toISOString() : event.created_at,
    },
    data: event.data ?? {},
    recipient: {
      external_id: recipient.external_id,
      locale: recipient.locale ?? null,
      timezone: recipient.timezone ?? null,
      region: recipient.region ?? null,
      attributes: recipient.attributes ?? {},
    },
  };
}
