import document from "./generated/openapi.json";

/** An operation of the document, as far as the tools read it. */
export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  "x-svc-agent-keys"?: string;
  [key: string]: unknown;
}

export interface OpenApiDocumentJson {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown>; [section: string]: Record<string, unknown> };
  security?: Record<string, string[]>[];
}

/** The merged OpenAPI document the client was generated from (equal to the served one, by test). */
export const openApiDocument = document as unknown as OpenApiDocumentJson;
