export * from "./coding-agent-hook";
