import { createHash } from "node:crypto";
import { renderGroupingKey } from "../grouping-key";

const context = {
  data: { repo: "svc", pr: 7 },
  recipient: { external_id: "u1" },
  event: { name: "pr.commented" },
};

describe("renderGroupingKey", () => {
  it.each([
    [null, ""],
    [undefined, ""],
    ["", ""],
    ["{{ data.repo }}#{{ data.pr }}", "svc#7"],
    ["  {{ event.name }}\n", "pr.commented"],
    ["{{ data.missing }}", ""],
  ])("%j -> %j", (template, key) => {
    expect(renderGroupingKey(template, context)).toEqual({ ok: true, key });
  });

  it("hashes keys longer than 200 characters", () => {
    const long = "x".repeat(201);
    expect(renderGroupingKey(long, context)).toEqual({
      ok: true,
      key: `sha256:${createHash("sha256").update(long).digest("hex")}`,
    });
    expect(renderGroupingKey("y".repeat(200), context)).toEqual({ ok: true, key: "y".repeat(200) });
  });

  it("reports errors under digest.key", () => {
    expect(renderGroupingKey("{{ data.repo | nope }}", context)).toEqual({
      ok: false,
      detail: "digest.key: line 1: unknown filter: nope",
    });
  });
});
