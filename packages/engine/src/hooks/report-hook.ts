import { HookPayloadError, mapCodingAgentHook, type HookOptions, type Principal } from "@svc/core";
import { acceptEvent, type AcceptEventDeps, type AcceptedEvent } from "../events/accept-event";
import { validationError } from "../shared/validation";

/**
 * POST /v1/hooks/claude-code (docs/hooks.md): the hook's own JSON becomes one event for the
 * recipient, mapped by the same function as `svcctl hook`, then accepted as POST /v1/events accepts
 * an event (idempotent by the key the mapping derives, agent limits, reserved names).
 */
export async function reportCodingAgentHook(
  deps: AcceptEventDeps,
  principal: Principal,
  recipient: string,
  payload: unknown,
  options: Omit<HookOptions, "recipient">,
): Promise<AcceptedEvent> {
  let event;
  try {
    event = mapCodingAgentHook(payload, { ...options, recipient });
  } catch (error) {
    if (!(error instanceof HookPayloadError)) throw error;
    throw validationError([{ loc: ["body"], msg: error.message, type: "value_error" }]);
  }
  return acceptEvent(deps, principal, {
    name: event.name,
    recipient,
    data: { ...event.data },
    idempotency_key: event.idempotency_key,
  });
}
