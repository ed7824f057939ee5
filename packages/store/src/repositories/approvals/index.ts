export * from "./approval-erasure";
export * from "./callback-deliveries";
export * from "./approval-requests";
export * from "./review-links";
export * from "./callback-sending";
export * from "./session-grants";
