import type { SvcConfig } from "@svc/config";
import { getRecipientById, listCategoriesOpenToUnsubscribe, type Database } from "@svc/store";
import type { ResolvedLinkToken } from "../links/resolve-link-token";

// What a person sees of their own preferences through a link: categories they may leave (those
// that allow unsubscribing), the configured channels, quiet hours. Never their profile or history.

interface QuietHours {
  start: string;
  end: string;
}

export interface OwnPreferencesView {
  locale: string | null;
  unsubscribed_categories: string[];
  muted_channels: string[];
  quiet_hours: QuietHours | null;
  categories: { key: string; description: string; subscribed: boolean }[];
  channels: { name: string; muted: boolean }[];
  /** For an unsubscribe link: the category of the message it came with. */
  link_category: string | null;
}

export async function loadOwnPreferences(
  db: Database,
  config: Pick<SvcConfig, "channels">,
  link: ResolvedLinkToken,
): Promise<OwnPreferencesView> {
  const [recipient, categories] = await Promise.all([
    getRecipientById(db, link.recipientId),
    listCategoriesOpenToUnsubscribe(db),
  ]);
  const channelNames = Object.keys(config.channels).sort();
  return {
    locale: recipient.locale,
    unsubscribed_categories: recipient.unsubscribed_categories,
    muted_channels: recipient.muted_channels,
    quiet_hours: (recipient.quiet_hours as QuietHours | null) ?? null,
    categories: categories.map((c) => ({
      key: c.key,
      description: c.description,
      subscribed: !recipient.unsubscribed_categories.includes(c.key),
    })),
    channels: channelNames.map((name) => ({ name, muted: recipient.muted_channels.includes(name) })),
    link_category: link.kind === "unsubscribe" ? link.category : null,
  };
}
