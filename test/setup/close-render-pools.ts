// Jest loads every module once per test file, so a test file that rendered a template has its own
// render threads (packages/engine/src/rendering/render-pool.ts): they are stopped when the file
// ends, or they would pile up in the jest worker that runs file after file.
afterAll(async () => {
  const close = (globalThis as Record<symbol, unknown>)[Symbol.for("svc.closeRenderPools")];
  if (typeof close === "function") await (close as () => Promise<void>)();
});
