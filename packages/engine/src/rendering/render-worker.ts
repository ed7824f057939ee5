import { decodeRenderTask, runRenderTask, type RenderTaskResult, type RenderWire } from "./render-task";

// The entry of a render thread (piscina calls the default export for each task).
export default function renderInThread(wire: RenderWire): RenderTaskResult {
  return runRenderTask(decodeRenderTask(wire));
}
