// The typed client of svc's HTTP API (docs/development.md "The typed client"): types generated
// from the OpenAPI document by openapi-typescript, requests made by openapi-fetch. svcctl, the MCP
// tools and the coding-agent hook call svc only through it.
export { createSvcClient, callApi, API_PROBLEM_UNREADABLE } from "./svc-client";
export type { SvcClient, SvcClientOptions, ApiResult, Problem, Schemas } from "./svc-client";
export { openApiDocument } from "./openapi-document";
export type { OpenApiDocumentJson, OpenApiOperation } from "./openapi-document";
export type { paths, components, operations } from "./generated/openapi";
