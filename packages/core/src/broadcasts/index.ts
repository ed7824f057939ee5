export * from "./broadcast-transition";
