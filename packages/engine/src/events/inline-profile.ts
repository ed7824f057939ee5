import type { AddressRow, RecipientRow } from "@svc/store";
import type { RecipientProfileInput } from "../recipients/recipient-profile";
import { canonicalJson } from "../shared/canonical-json";

type StoredProfile = Pick<RecipientRow, "locale" | "timezone" | "region" | "attributes"> & {
  addresses: Pick<AddressRow, "channel" | "value" | "enabled">[];
};

/**
 * Fields an inline profile would change on the stored one (empty when it only repeats what is
 * stored). Given fields replace stored ones and a given address list replaces the stored list, as
 * writeProfile applies them; fields left out change nothing.
 */
export function profileChanges(stored: StoredProfile, inline: RecipientProfileInput): string[] {
  const changed: string[] = [];
  for (const field of ["locale", "timezone", "region"] as const) {
    if (inline[field] !== undefined && (inline[field] ?? null) !== stored[field]) changed.push(field);
  }
  if (
    inline.attributes !== undefined &&
    canonicalJson(inline.attributes) !== canonicalJson(stored.attributes ?? {})
  )
    changed.push("attributes");
  if (inline.addresses !== undefined) {
    const given = inline.addresses.map((a) => addressId(a.channel, a.value, a.enabled ?? true)).sort();
    const kept = stored.addresses.map((a) => addressId(a.channel, a.value, a.enabled)).sort();
    if (canonicalJson(given) !== canonicalJson(kept)) changed.push("addresses");
  }
  return changed;
}

const addressId = (channel: string, value: string, enabled: boolean) =>
  `${channel}\u0000${value}\u0000${enabled}`;
