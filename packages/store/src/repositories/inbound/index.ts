export * from "./inbound-erasure";
