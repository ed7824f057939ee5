export * from "./escape-html";
export * from "./canonical-json";
