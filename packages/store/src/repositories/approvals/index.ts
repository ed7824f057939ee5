export * from "./approval-erasure";
export * from "./callback-deliveries";
