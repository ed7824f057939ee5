export * from "./inbox-items";
export * from "./inbox-streams";
