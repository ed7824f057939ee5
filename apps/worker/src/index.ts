export * from "./start-workers";
export * from "./shutdown";
export * from "./handlers";
export * from "./report-dead-jobs";
export * from "./worker-process";
export { startMetricsListener, type MetricsListener } from "./metrics-listener";
