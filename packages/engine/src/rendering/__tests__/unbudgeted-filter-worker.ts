// A render thread whose language has two filters nobody budgeted: `spin` never returns and
// `swell` allocates without end. The hard ceiling must hold against them (render-pool.test.ts).
import "@svc/jinja";
// The template language's own (unexported) environment, the one its renders use: resolved to the
// same file as @svc/jinja's.
import { getEnvironment } from "../../../../jinja/src/environment";
import { runRenderWire, type RenderWire } from "../render-task";

for (const html of [false, true]) {
  getEnvironment(html).addFilter("spin", () => {
    for (;;);
  });
  getEnvironment(html).addFilter("swell", () => {
    const kept: number[][] = [];
    for (let i = 0; ; i++) kept.push(new Array<number>(1_000_000).fill(i));
  });
}

export default function render(wire: RenderWire) {
  return runRenderWire(wire);
}
