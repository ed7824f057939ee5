export { createApp, type AppDeps, type ApiHttpConfig } from "./app";
export { getOperation, type OperationInfo, type SecurityRequirement } from "./http/openapi-validation";
export {
  sendProblem,
  buildProblem,
  PROBLEM_MEDIA_TYPE,
  type Problem,
  type ProblemInput,
} from "./http/problem";
export type { ReadinessCheck } from "./http/probes";
export { loadOpenApiDocument, mergeFragment, type OpenApiDocument } from "./openapi/load-openapi";
export { assertValidOpenApiDocument } from "./openapi/assert-valid";
export { loggablePath } from "./http/loggable-path";
