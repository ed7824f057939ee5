// Jinja2 3.1 as svc's template language (docs/templates.md "The language: Jinja2 3.1"), on
// nunjucks: compile and render one template string, with the render budget. Pure, like
// packages/core: no I/O.
export {
  renderSource,
  compileSource,
  normaliseSource,
  formatSourceError,
  COMPILE_CACHE_SIZE,
} from "./compile";
export type { CompiledSource, RenderedString, StringRenderOptions } from "./compile";
export type { TemplateSourceError } from "./template-source-error";
export { RENDER_TIME_LIMIT_MS, RENDER_MAX_ITEMS, RENDER_MAX_WIDTH } from "./render-budget";
export { templateLanguageNames } from "./language";
