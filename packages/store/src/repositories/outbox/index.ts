export * from "./outbox-entries";
