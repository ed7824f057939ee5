export * from "./catalog";
export * from "./connection";
export * from "./producers";
export * from "./errors";
export * from "./worker";
export * from "./schedules";
export * from "./sweeper";
export * from "./dead-jobs";
