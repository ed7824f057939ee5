// Jinja2 builtins svc leaves out, with the reason shown when a template uses one (docs/templates.md
// lists the same).

export const LEFT_OUT_FILTERS: Record<string, string> = {
  attr: "it reads Python object attributes, and template data has none",
};
