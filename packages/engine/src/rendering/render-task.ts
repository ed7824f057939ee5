import {
  renderGroupingKey,
  renderTemplate,
  type GroupingKeyResult,
  type RenderContext,
  type RenderTemplateInput,
  type RenderTemplateResult,
} from "@svc/core";

// What one trip to a render thread does (docs/templates.md "Limits"): the renderings of one
// message (a template for each of its channels, stopping at the first failure) or one digest
// grouping key. Plain data in and out. To a render thread the task travels as JSON text
// (encodeRenderTask): a render context is JSON already (event data, a profile, ids and ISO times),
// and writing it as text costs the sending event loop a fraction of what a structured clone of the
// same object graph costs (a quarter, measured on 250,000 small arrays: docs/templates.md "Limits").

export type RenderTask = (
  | { kind: "templates"; inputs: RenderTemplateInput[] }
  | { kind: "grouping-key"; template: string | null; context: RenderContext }
) & {
  /** On a render thread: where the thread writes Date.now() as it starts (render-pool.ts). */
  startedAt?: Float64Array;
};

export type RenderTaskResult = RenderTemplateResult[] | GroupingKeyResult;

export function runRenderTask(task: RenderTask): RenderTaskResult {
  if (task.startedAt) task.startedAt[0] = Date.now();
  if (task.kind === "grouping-key") return renderGroupingKey(task.template, task.context);
  const results: RenderTemplateResult[] = [];
  for (const input of task.inputs) {
    const result = renderTemplate(input);
    results.push(result);
    if (!result.ok) break;
  }
  return results;
}

/** A task as it crosses to a render thread: JSON text, each distinct context written once. */
export interface RenderWire {
  json: string;
  startedAt?: Float64Array;
}

type WireTask =
  | {
      kind: "templates";
      contexts: RenderContext[];
      inputs: (Omit<RenderTemplateInput, "context"> & { context: number })[];
    }
  | { kind: "grouping-key"; template: string | null; context: RenderContext };

export function encodeRenderTask(task: RenderTask): RenderWire {
  if (task.kind === "grouping-key") {
    const wire: WireTask = { kind: "grouping-key", template: task.template, context: task.context };
    return { json: JSON.stringify(wire), startedAt: task.startedAt };
  }
  // The channels of one message share one context: written once, not once per channel.
  const contexts: RenderContext[] = [];
  const inputs = task.inputs.map(({ context, ...input }) => {
    let index = contexts.indexOf(context);
    if (index < 0) index = contexts.push(context) - 1;
    return { ...input, context: index };
  });
  const wire: WireTask = { kind: "templates", contexts, inputs };
  return { json: JSON.stringify(wire), startedAt: task.startedAt };
}

export function decodeRenderTask(wire: RenderWire): RenderTask {
  const task = JSON.parse(wire.json) as WireTask;
  if (task.kind === "grouping-key") return { ...task, startedAt: wire.startedAt };
  return {
    kind: "templates",
    inputs: task.inputs.map((input) => ({ ...input, context: task.contexts[input.context]! })),
    startedAt: wire.startedAt,
  };
}
