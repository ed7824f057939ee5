import {
  renderGroupingKey,
  renderTemplate,
  type GroupingKeyResult,
  type RenderContext,
  type RenderTemplateInput,
  type RenderTemplateResult,
} from "@svc/core";

// What a render task is (docs/templates.md "Limits"): the renderings of one message (a template
// for each of its channels, stopping at the first failure) or one digest grouping key. Plain data
// in and out; the tasks asked for in one turn of the event loop travel to a thread together. To a render thread the task travels as JSON text
// (encodeRenderTask): a render context is JSON already (event data, a profile, ids and ISO times),
// and writing it as text costs the sending event loop a fraction of what a structured clone of the
// same object graph costs (a quarter, measured on 250,000 small arrays: docs/templates.md "Limits").

export type RenderTask =
  | { kind: "templates"; inputs: RenderTemplateInput[] }
  | { kind: "grouping-key"; template: string | null; context: RenderContext };

export type RenderTaskResult = RenderTemplateResult[] | GroupingKeyResult;

export function runRenderTask(task: RenderTask): RenderTaskResult {
  if (task.kind === "grouping-key") return renderGroupingKey(task.template, task.context);
  const results: RenderTemplateResult[] = [];
  for (const input of task.inputs) {
    const result = renderTemplate(input);
    results.push(result);
    if (!result.ok) break;
  }
  return results;
}

/**
 * Tasks as they cross to a render thread together (render-pool.ts sends the tasks asked for in one
 * turn of the event loop as one trip): JSON text, each distinct context of a message written once.
 */
export interface RenderWire {
  json: string;
  /**
   * Where the thread writes, as it starts each task, Date.now() (index 0) and the task's position
   * (index 1): the pool's clock for the hard limit runs per task from there.
   */
  progress?: Float64Array;
}

type WireTask =
  | {
      kind: "templates";
      contexts: RenderContext[];
      inputs: (Omit<RenderTemplateInput, "context"> & { context: number })[];
    }
  | { kind: "grouping-key"; template: string | null; context: RenderContext };

function toWire(task: RenderTask): WireTask {
  if (task.kind === "grouping-key") return task;
  // The channels of one message share one context: written once, not once per channel.
  const contexts: RenderContext[] = [];
  const inputs = task.inputs.map(({ context, ...input }) => {
    let index = contexts.indexOf(context);
    if (index < 0) index = contexts.push(context) - 1;
    return { ...input, context: index };
  });
  return { kind: "templates", contexts, inputs };
}

function fromWire(task: WireTask): RenderTask {
  if (task.kind === "grouping-key") return task;
  return {
    kind: "templates",
    inputs: task.inputs.map((input) => ({ ...input, context: task.contexts[input.context]! })),
  };
}

export function encodeRenderTasks(tasks: readonly RenderTask[], progress?: Float64Array): RenderWire {
  return { json: JSON.stringify(tasks.map(toWire)), progress };
}

export function decodeRenderTasks(wire: RenderWire): RenderTask[] {
  return (JSON.parse(wire.json) as WireTask[]).map(fromWire);
}

/** What a render thread does with a trip: each task in order, marking its start in `progress`. */
export function runRenderWire(wire: RenderWire): RenderTaskResult[] {
  return decodeRenderTasks(wire).map((task, index) => {
    if (wire.progress) {
      wire.progress[1] = index;
      wire.progress[0] = Date.now();
    }
    return runRenderTask(task);
  });
}
