export * from "./escape-html";
