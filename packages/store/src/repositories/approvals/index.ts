export * from "./approval-erasure";
