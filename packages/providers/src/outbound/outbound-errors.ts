// The one error an outbound guard raises (docs/providers.md, "Outbound requests"). Callers classify
// it by class (`isOutboundAddressRefused`), never by its text.

export const OUTBOUND_ADDRESS_REFUSED = "SVC_OUTBOUND_ADDRESS_REFUSED";

export class OutboundAddressRefusedError extends Error {
  readonly code = OUTBOUND_ADDRESS_REFUSED;

  /**
   * `host` is what the request named, `address` the resolved address that was refused (null when
   * the name resolved to nothing). For operators' logs only: never store or return them.
   */
  constructor(
    readonly host: string,
    readonly address: string | null,
  ) {
    super("refused to connect to an internal network address");
    this.name = "OutboundAddressRefusedError";
  }
}

/** True when `error`, or an error it wraps (`cause`, as undici and fetch wrap), is a refusal. */
export function isOutboundAddressRefused(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    if (current instanceof OutboundAddressRefusedError) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
