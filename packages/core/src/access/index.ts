export * from "./scopes";
export * from "./api-key-secret";
export * from "./link-tokens";
export * from "./operation-access";
export * from "./inbox-token";
