export * from "./template-types";
export * from "./locale";
export * from "./link-placeholders";
export {
  renderSource,
  compileSource,
  normaliseSource,
  formatSourceError,
  COMPILE_CACHE_SIZE,
} from "./compile";
export type { RenderedString, StringRenderOptions } from "./compile";
export type { TemplateSourceError } from "./template-types";
export { RENDER_TIME_LIMIT_MS, RENDER_MAX_ITEMS, RENDER_MAX_WIDTH } from "./render-budget";
export { templateLanguageNames } from "./jinja";
export * from "./render-template";
export * from "./validate-template";
export * from "./grouping-key";
