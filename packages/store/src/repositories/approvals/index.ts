export * from "./approval-erasure";
export * from "./callback-deliveries";
export * from "./callback-sending";
