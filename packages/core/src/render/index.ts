// svc's templates: their shape, locale fallback, link placeholders, rendering a template's fields
// and digest grouping keys, and the write-time check. The template language itself (Jinja2, the
// render budget) is @svc/jinja.
export * from "./template-types";
export * from "./locale";
export * from "./link-placeholders";
export * from "./render-template";
export * from "./validate-template";
export * from "./grouping-key";
