export * from "./event-types";
export * from "./webhook-secret";
