// What composeMessage refuses instead of deciding: references its caller must have checked
// (direct sends answer 422, ingest reports `misconfigured` / `agent_deleted`). A missing template
// is not among them: it is decided, as a `failed` message with `template_error: no template '<key>'`.

export type ComposeReference = "recipient" | "category" | "agent";

export class ComposeReferenceError extends Error {
  override readonly name = "ComposeReferenceError";
  constructor(
    readonly reference: ComposeReference,
    readonly key: string,
  ) {
    super(`${reference} '${key}' does not exist`);
  }
}
