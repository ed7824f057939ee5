export * from "./keys";
export * from "./event-pattern";
export * from "./rollout";
export * from "./order";
export * from "./condition";
export * from "./match-rules";
