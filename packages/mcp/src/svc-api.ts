import { callApi, type ApiResult, type Schemas, type SvcClient } from "@svc/client";

/**
 * The REST operations the tools call, one method per operation. `svcctl mcp` implements it over
 * HTTP with the typed client (below); the API's own /mcp implements it in-process with the same
 * use cases its routes call (apps/api/src/mcp). Either way the answer is the REST twin's: its body,
 * or its RFC 9457 problem.
 */
export interface SvcApi {
  sendMessage(body: Schemas["MessageSend"]): Promise<ApiResult<Schemas["Message"]>>;
  approveMessage(id: string, body: Schemas["Decision"]): Promise<ApiResult<Schemas["Message"]>>;
  rejectMessage(id: string, body: Schemas["Decision"]): Promise<ApiResult<Schemas["Message"]>>;
  createApproval(body: Schemas["ApprovalCreate"]): Promise<ApiResult<Schemas["Approval"]>>;
  /** `waitSeconds` (at most 30) holds the read until the request is decided (GET …?wait=). */
  getApproval(id: string, waitSeconds?: number): Promise<ApiResult<Schemas["Approval"]>>;
}

/** The tools' operations over HTTP, through the typed client. */
export function svcApiOverHttp(client: SvcClient): SvcApi {
  return {
    sendMessage: (body) => callApi(client.POST("/v1/messages", { body })),
    approveMessage: (id, body) =>
      callApi(client.POST("/v1/messages/{id}/approve", { params: { path: { id } }, body })),
    rejectMessage: (id, body) =>
      callApi(client.POST("/v1/messages/{id}/reject", { params: { path: { id } }, body })),
    createApproval: (body) => callApi(client.POST("/v1/approvals", { body })),
    getApproval: (id, waitSeconds) =>
      callApi(
        client.GET("/v1/approvals/{id}", {
          params: { path: { id }, query: waitSeconds ? { wait: waitSeconds } : {} },
        }),
      ),
  };
}
