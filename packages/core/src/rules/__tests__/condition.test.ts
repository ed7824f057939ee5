import jsonLogic from "json-logic-js";
import { buildConditionData, CONDITION_OPERATORS, evaluateCondition, validateCondition } from "../condition";

const data = buildConditionData(
  {
    id: "evt_1",
    name: "order.created",
    created_at: new Date("2025-03-01T10:00:00Z"),
    data: { amount: 120, items: [{ sku: "a" }, { sku: "b" }], tags: [] },
  },
  { external_id: "u1", locale: "de-AT", attributes: { plan: "pro" } },
);

describe("buildConditionData", () => {
  it("exposes exactly the documented fields", () => {
    expect(data).toEqual({
      event: { id: "evt_1", name: "order.created", created_at: "2025-03-01T10:00:00.000Z" },
      data: { amount: 120, items: [{ sku: "a" }, { sku: "b" }], tags: [] },
      recipient: {
        external_id: "u1",
        locale: "de-AT",
        timezone: null,
        region: null,
        attributes: { plan: "pro" },
      },
    });
  });
});

describe("evaluateCondition", () => {
  it.each([
    [true, true],
    [false, false],
    [{ ">": [{ var: "data.amount" }, 100] }, true],
    [{ ">": [{ var: "data.amount" }, 200] }, false],
    [{ "==": [{ var: "recipient.attributes.plan" }, "pro"] }, true],
    [{ "==": [{ var: "event.name" }, "order.created"] }, true],
    [{ var: "data.tags" }, false], // empty array is falsy in JSON Logic
    [{ var: "data.items" }, true],
    [{ var: "data.missing" }, false],
    [{ some: [{ var: "data.items" }, { "==": [{ var: "sku" }, "b"] }] }, true],
    [{ in: ["de", { var: "recipient.locale" }] }, true],
    [{ and: [{ "!!": { var: "recipient.external_id" } }, { "<": [1, 2, 3] }] }, true],
    [{ if: [{ var: "recipient.timezone" }, true, false] }, false],
    [{ reduce: [[1, 2], { "+": [{ var: "current" }, { var: "accumulator" }] }, 0] }, true],
    [{ "==": [{ substr: [{ var: "data.amount" }, 1] }, "20"] }, true],
  ])("%j -> %s", (logic, value) => {
    expect(evaluateCondition(logic, data)).toEqual({ ok: true, value });
  });

  it.each([
    [{ foo: [1, 2] }, "unknown operator: foo"],
    [{ and: [true, { or: [false, { regex: ["a", "b"] }] }] }, "unknown operator: regex"],
    [{ log: "x" }, "unknown operator: log"],
    [{ method: [{ var: "data" }, "toString"] }, "unknown operator: method"],
    [{ "a.b": [] }, "unknown operator: a.b"],
    [
      { a: 1, b: 2 },
      "condition must be true, false or a JSON Logic operation (an object with exactly one key)",
    ],
    [42, "condition must be true, false or a JSON Logic operation (an object with exactly one key)"],
    [null, "condition must be true, false or a JSON Logic operation (an object with exactly one key)"],
  ])("%j -> error %p", (logic, detail) => {
    expect(evaluateCondition(logic, data)).toEqual({ ok: false, detail });
  });

  it("reports exceptions raised while evaluating", () => {
    expect(evaluateCondition({ merge: [{ var: "data.amount" }, { missing_some: [1, null] }] }, data)).toEqual(
      {
        ok: false,
        detail: "Cannot read properties of null (reading 'length')",
      },
    );
  });

  it("reports a tree too deep to evaluate instead of throwing", () => {
    let logic: unknown = true;
    for (let i = 0; i < 100_000; i++) logic = { "!": [logic] };
    const result = evaluateCondition(logic, data);
    expect(result).toEqual({ ok: false, detail: "Maximum call stack size exceeded" });
  });
});

describe("validateCondition", () => {
  it.each([
    [true, { ok: true }],
    [false, { ok: true }],
    [{ "==": [{ var: "data.x" }, { a: 1, b: { nope: 1 } }] }, { ok: true }], // multi-key objects are literals
    [{ and: [true, { nope: [] }] }, { ok: false, detail: "unknown operator: nope", loc: ["and", 1, "nope"] }],
    [{ "!": { oops: 1 } }, { ok: false, detail: "unknown operator: oops", loc: ["!", "oops"] }],
    [
      "yes",
      {
        ok: false,
        detail: "condition must be true, false or a JSON Logic operation (an object with exactly one key)",
        loc: [],
      },
    ],
    [
      [true],
      {
        ok: false,
        detail: "condition must be true, false or a JSON Logic operation (an object with exactly one key)",
        loc: [],
      },
    ],
  ])("%j", (logic, expected) => {
    expect(validateCondition(logic)).toEqual(expected);
  });

  it("lists only operators json-logic-js really implements", () => {
    for (const op of CONDITION_OPERATORS) {
      let message = "";
      try {
        jsonLogic.apply({ [op]: [[], []] }, {});
      } catch (e) {
        message = (e as Error).message;
      }
      expect(`${op}: ${message}`).not.toContain("Unrecognized operation");
    }
  });
});
