import { accessDenial, describeOperationAccess, type Principal } from "@svc/core";
import type { OpenApiDocumentJson } from "@svc/client";
import type { SvcTool } from "./tools";

/** Who calls the tools: the key's scopes and the agent it is bound to. */
export type ToolCaller = Pick<Principal, "scopes" | "agentKey">;

function operationById(doc: OpenApiDocumentJson, operationId: string) {
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item)) {
      if (operation && typeof operation === "object" && operation.operationId === operationId)
        return operation;
    }
  }
  throw new Error(`no operation ${operationId} in the OpenAPI document`);
}

/**
 * Why the caller may not use the tool (the 403 detail its REST twin would give), or null. The
 * same check as every REST request (docs/api.md "Scopes"), on the same operations.
 */
export function toolDenial(doc: OpenApiDocumentJson, tool: SvcTool, caller: ToolCaller): string | null {
  for (const operationId of tool.operations) {
    const denial = accessDenial(
      caller,
      describeOperationAccess(operationById(doc, operationId), doc.security),
    );
    if (denial) return denial;
  }
  return null;
}
