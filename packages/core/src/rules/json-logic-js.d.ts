// json-logic-js ships without types; only what condition.ts uses is declared.
declare module "json-logic-js" {
  const jsonLogic: {
    apply(logic: unknown, data?: unknown): unknown;
    truthy(value: unknown): boolean;
    is_logic(logic: unknown): boolean;
  };
  export = jsonLogic;
}
