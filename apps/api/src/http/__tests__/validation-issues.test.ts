import { summarizeIssues, toValidationIssues } from "../validation-issues";

describe("toValidationIssues", () => {
  it.each([
    [
      { path: "/body/name", message: "must be string", errorCode: "type.openapi.validation" },
      { loc: ["body", "name"], msg: "must be string", type: "type" },
    ],
    [
      {
        path: "/body/name",
        message: "must have required property 'name'",
        errorCode: "required.openapi.validation",
      },
      { loc: ["body", "name"], msg: "is required", type: "missing" },
    ],
    [
      {
        path: "/body/x",
        message: "must NOT have additional properties",
        errorCode: "additionalProperties.openapi.validation",
      },
      { loc: ["body", "x"], msg: "unknown field", type: "additional_properties" },
    ],
    [
      {
        path: "/body/x",
        message: "must NOT have unevaluated properties",
        errorCode: "unevaluatedProperties.openapi.validation",
      },
      { loc: ["body", "x"], msg: "unknown field", type: "additional_properties" },
    ],
    [
      {
        path: "/body/items/2/to",
        message: "must NOT have fewer than 1 characters",
        errorCode: "minLength.openapi.validation",
      },
      { loc: ["body", "items", 2, "to"], msg: "must NOT have fewer than 1 characters", type: "min_length" },
    ],
    [
      { path: "/body/a~1b~0c", message: "must be integer", errorCode: "type.openapi.validation" },
      { loc: ["body", "a/b~c"], msg: "must be integer", type: "type" },
    ],
    [
      { path: "/query/limit", message: "must be <= 500", errorCode: "maximum.openapi.validation" },
      { loc: ["query", "limit"], msg: "must be <= 500", type: "maximum" },
    ],
    [
      { path: "/params/id", message: "must match pattern", errorCode: "pattern.openapi.validation" },
      { loc: ["path", "id"], msg: "must match pattern", type: "pattern" },
    ],
    [
      { path: "/headers/idempotency-key", message: "must be string", errorCode: "type.openapi.validation" },
      { loc: ["header", "idempotency-key"], msg: "must be string", type: "type" },
    ],
    [
      { path: "/query/foo", message: "Unknown query parameter 'foo'" },
      { loc: ["query", "foo"], msg: "unknown parameter", type: "additional_properties" },
    ],
    [
      { path: "/query/q", message: "Empty value found for query parameter 'q'" },
      { loc: ["query", "q"], msg: "Empty value found for query parameter 'q'", type: "empty" },
    ],
    [
      { path: "/body", message: "must be object", errorCode: "type.openapi.validation" },
      { loc: ["body"], msg: "must be object", type: "type" },
    ],
  ])("%j", (item, issue) => {
    expect(toValidationIssues([item])).toEqual([issue]);
  });

  it("is undefined when an item is not about a request part", () => {
    expect(toValidationIssues([{ path: "/v1/x", message: "malformed uri'" }])).toBeUndefined();
  });
});

describe("summarizeIssues", () => {
  const issue = (n: number) => ({ loc: ["body", `f${n}`], msg: "must be string", type: "type" });

  it.each([
    [[issue(1)], "Request validation failed: body.f1: must be string"],
    [[issue(1), issue(2)], "Request validation failed: body.f1: must be string; body.f2: must be string"],
    [
      [1, 2, 3, 4, 5, 6, 7].map(issue),
      "Request validation failed: body.f1: must be string; body.f2: must be string; body.f3: must be string; body.f4: must be string; body.f5: must be string (and 2 more)",
    ],
  ])("%#", (issues, expected) => {
    expect(summarizeIssues(issues)).toBe(expected);
  });
});
