export * from "./recovery-timings";
