export { createGuardedDispatcher, checkedLookup, type GuardedDispatcherOptions } from "./guarded-dispatcher";
export {
  embeddedIPv4,
  INTERNAL_IPV4_RANGES,
  INTERNAL_IPV6_RANGES,
  isInternalAddress,
} from "./internal-address";
export {
  isOutboundAddressRefused,
  OUTBOUND_ADDRESS_REFUSED,
  OutboundAddressRefusedError,
} from "./outbound-errors";
