import type { AddressRow, RecipientRow } from "@svc/store";

export interface RecipientViewOptions {
  /** Agent keys never see preferences, tokens or links (docs/preferences.md, "Agent keys"). */
  redactPreferences: boolean;
}

export function serializeRecipient(
  row: RecipientRow & { addresses: AddressRow[] },
  options: RecipientViewOptions,
) {
  const view = {
    external_id: row.external_id,
    locale: row.locale,
    timezone: row.timezone,
    region: row.region,
    attributes: row.attributes as Record<string, unknown>,
    addresses: row.addresses
      .slice()
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.channel.localeCompare(b.channel))
      .map((a) => ({ channel: a.channel, value: a.value, enabled: a.enabled })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
  if (options.redactPreferences) return view;
  return {
    ...view,
    preferences: {
      unsubscribed_categories: row.unsubscribed_categories,
      muted_channels: row.muted_channels,
      quiet_hours: (row.quiet_hours as { start: string; end: string } | null) ?? null,
    },
  };
}
