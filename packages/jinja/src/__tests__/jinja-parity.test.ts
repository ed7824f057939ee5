import { readFileSync } from "node:fs";
import path from "node:path";
import { renderSource } from "../compile";
import { DIFFERENCES } from "../language/differences";
import { CORPUS, CORPUS_DATA } from "./jinja-parity/corpus";
import { jinja2Version, renderWithJinja2, type ReferenceResult } from "./jinja-parity/jinja2-reference";

// svc's templates against the real Jinja2 (docs/templates.md): every corpus template renders to
// the same bytes (or fails in both), and every documented difference is exactly as documented.

const CONTEXT = JSON.stringify({ data: CORPUS_DATA });
const corpus = Object.entries(CORPUS).flatMap(([family, list]) => list.map((item) => ({ family, ...item })));

function svcRender(source: string, context: string, html = false) {
  return renderSource(source, JSON.parse(context), { html });
}

/** Same text, or both failed (the messages differ by design). */
function outcome(result: { ok: true; text: string } | { ok: false }): { text: string } | { fails: true } {
  return result.ok ? { text: result.text } : { fails: true };
}

let reference: ReferenceResult[];
let differenceReference: ReferenceResult[];

beforeAll(() => {
  jinja2Version(); // fails loudly, with the apt-get hint, when Jinja2 is missing
  reference = renderWithJinja2(corpus.map(({ source, html }) => ({ source, context: CONTEXT, html })));
  differenceReference = renderWithJinja2(DIFFERENCES.map(({ source, context }) => ({ source, context })));
});

describe("templates render as Jinja2 3.1 renders them", () => {
  it("has a corpus of at least 150 templates covering each family", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(150);
    for (const list of Object.values(CORPUS)) expect(list.length).toBeGreaterThanOrEqual(10);
  });

  it.each(corpus.map((item, index) => [item.family, item.source, index] as const))(
    "%s: %j",
    (_family, source, index) => {
      const jinja2 = reference[index]!;
      const svc = svcRender(source, CONTEXT, corpus[index]!.html);
      expect(outcome(svc)).toEqual(outcome(jinja2));
    },
  );
});

describe("documented differences from Jinja2", () => {
  it.each(DIFFERENCES.map((difference, index) => [difference.topic, index] as const))(
    "%s",
    (_topic, index) => {
      const { source, context, svc, jinja2 } = DIFFERENCES[index]!;
      const ours = svcRender(source, context);
      expect(ours).toEqual(
        typeof svc === "string"
          ? { ok: true, text: svc }
          : { ok: false, error: { line: 1, message: svc.error } },
      );
      const theirs = differenceReference[index]!;
      if (typeof jinja2 === "string") expect(theirs).toEqual({ ok: true, text: jinja2 });
      else if ("error" in jinja2)
        expect(theirs.ok ? theirs.text : theirs.error).toMatch(new RegExp(`^${jinja2.error}: `));
      else expect(theirs.ok && theirs.text.startsWith(jinja2.startsWith)).toBe(true);
    },
  );

  it("are the ones docs/templates.md lists", () => {
    const docs = readFileSync(path.join(__dirname, "../../../../docs/templates.md"), "utf8");
    for (const { source } of DIFFERENCES) expect(docs).toContain(source);
  });
});
