export * from "./webhook-endpoints";
export * from "./webhook-deliveries";
export * from "./webhook-subjects";
export * from "./webhook-privacy";
