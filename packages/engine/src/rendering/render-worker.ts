import { runRenderWire, type RenderTaskResult, type RenderWire } from "./render-task";

// The entry of a render thread (piscina calls the default export for each trip).
export default function renderInThread(wire: RenderWire): RenderTaskResult[] {
  return runRenderWire(wire);
}
