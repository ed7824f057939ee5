import { claimSafeToSend, recoveryTimings } from "@svc/core";
import { renewDeliveryLeases, type RootDatabase } from "@svc/store";
import type { DeliveryDeps } from "../shared/delivery-types";

// A claim's lease is short (`worker.lease_seconds`), so a dead worker's messages are free within
// a minute; while a send runs, its process renews the lease every third of it, so a slow provider
// call keeps its claim (docs/operations.md "Recovery guarantees"). One statement renews every
// claim the process holds. The keeper also remembers until when each lease is known to be valid,
// so a run whose renewals failed does not start a send another worker may be starting too
// (docs/operations.md "A claim that may have lapsed").

export interface HeldClaim {
  /** Stops renewing this claim (the run ended). */
  release(): void;
  /** Whether the lease is known to be valid long enough to start a provider call now. */
  safeToSend(now: Date): boolean;
}

export interface LeaseKeeper {
  /** Renews this claim (whose lease runs until `lease_until`) until it is released. */
  hold(claim: { id: string; generation: number; lease_until: Date | null }): HeldClaim;
  /** Claims held right now. */
  readonly held: number;
}

type KeeperDeps = Pick<DeliveryDeps, "config" | "now" | "logger"> & { prisma: RootDatabase };

interface Entry {
  messageId: string;
  generation: number;
  /** Until when this process knows the lease valid (ms): the claim's lease, then each renewal's. */
  validUntil: number;
}

const byDeps = new WeakMap<object, LeaseKeeper>();

/** One keeper per deps object (the delivery handler builds its deps once per process). */
export function leaseKeeperFor(deps: KeeperDeps): LeaseKeeper {
  let keeper = byDeps.get(deps);
  if (!keeper) {
    keeper = createLeaseKeeper(deps);
    byDeps.set(deps, keeper);
  }
  return keeper;
}

function createLeaseKeeper(deps: KeeperDeps): LeaseKeeper {
  const { leaseMs, leaseRenewMs } = recoveryTimings(deps.config.worker);
  const claims = new Map<string, Entry>();
  let timer: NodeJS.Timeout | undefined;
  let renewing = false;

  const renew = async () => {
    if (renewing || claims.size === 0) return;
    renewing = true;
    try {
      const entries = [...claims.values()];
      const until = deps.now().getTime() + leaseMs;
      await renewDeliveryLeases(deps.prisma, entries, new Date(until));
      for (const entry of entries) entry.validUntil = Math.max(entry.validUntil, until);
    } catch (error) {
      // The next beat tries again; a lease lasts three beats.
      deps.logger.warn("delivery leases not renewed", {
        error: (error as Error).message,
        claims: claims.size,
      });
    } finally {
      renewing = false;
    }
  };

  return {
    hold({ id, generation, lease_until }) {
      const key = `${id}-${generation}`;
      const entry: Entry = {
        messageId: id,
        generation,
        validUntil: lease_until?.getTime() ?? deps.now().getTime() + leaseMs,
      };
      claims.set(key, entry);
      if (!timer) {
        timer = setInterval(() => void renew(), leaseRenewMs);
        timer.unref();
      }
      return {
        release() {
          if (claims.get(key) !== entry) return;
          claims.delete(key);
          if (claims.size === 0 && timer) {
            clearInterval(timer);
            timer = undefined;
          }
        },
        safeToSend(now) {
          return claimSafeToSend(entry.validUntil, now.getTime(), leaseMs);
        },
      };
    },
    get held() {
      return claims.size;
    },
  };
}
