// An undici dispatcher for requests whose address comes from data (docs/providers.md, "Outbound
// requests"). The check runs inside the connection itself: the name is resolved once, every
// address it resolved to is checked, and the socket connects to exactly the checked address, so
// a DNS answer that changes between a check and the connect (DNS rebinding) has nothing to slip
// through. Address literals in the URL (`https://127.0.0.1/`, `https://[::ffff:7f00:1]/`) never
// reach a lookup and are checked before connecting.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector, type Dispatcher } from "undici";
import { isInternalAddress } from "./internal-address";
import { OutboundAddressRefusedError } from "./outbound-errors";

export interface GuardedDispatcherOptions extends Agent.Options {
  /** Let requests reach internal addresses too (local development: `outbound.allow_private_addresses`). */
  allowPrivate: boolean;
  /** Options of each connection (TLS settings, timeout), as undici's `connect` object takes them. */
  connect?: buildConnector.BuildOptions;
  /** The resolver (default `dns.lookup`); tests and custom DNS set their own. */
  lookup?: LookupFunction;
}

/** An undici Agent that refuses to connect to internal addresses unless `allowPrivate` is set. */
export function createGuardedDispatcher(options: GuardedDispatcherOptions): Dispatcher {
  const { allowPrivate, connect, lookup, ...agentOptions } = options;
  if (allowPrivate) {
    return new Agent({ ...agentOptions, connect: { ...connect, ...(lookup ? { lookup } : {}) } });
  }
  const base = buildConnector({ ...connect, lookup: checkedLookup(lookup ?? (dnsLookup as LookupFunction)) });
  const guarded: buildConnector.connector = (target, callback) => {
    const host = target.hostname;
    if (isIP(host) !== 0 && isInternalAddress(host)) {
      // undici calls back asynchronously itself; do the same so callers see one behaviour.
      queueMicrotask(() => callback(new OutboundAddressRefusedError(host, host), null));
      return;
    }
    base(target, callback);
  };
  return new Agent({ ...agentOptions, connect: guarded });
}

/** A `lookup` for net/tls.connect that answers only when every resolved address is global. */
export function checkedLookup(resolve: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    const all = (options as LookupOptions).all === true;
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, "", 0);
        return;
      }
      const list = (Array.isArray(addresses) ? addresses : []) as LookupAddress[];
      // A name that also points inside is refused whole: one internal answer is enough to aim with.
      const refused = list.length === 0 ? null : list.find((entry) => isInternalAddress(entry.address));
      if (list.length === 0 || refused) {
        callback(new OutboundAddressRefusedError(hostname, refused?.address ?? null), "", 0);
        return;
      }
      if (all) (callback as (e: null, a: LookupAddress[]) => void)(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
