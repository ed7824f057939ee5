export * from "./inbound-erasure";
export * from "./inbound-replies";
