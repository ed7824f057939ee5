// The component's words, English and German to start (`locale="de"`, `de-AT` finds `de`).

export interface Strings {
  notifications: string;
  unreadCount(n: number): string;
  markAllRead: string;
  archive: string;
  empty: string;
  loading: string;
  failed: string;
  unread: string;
  newItem: string;
}

const en: Strings = {
  notifications: "Notifications",
  unreadCount: (n) => `${n} unread`,
  markAllRead: "Mark all as read",
  archive: "Archive",
  empty: "No notifications yet",
  loading: "Loading…",
  failed: "Notifications could not be loaded",
  unread: "Unread",
  newItem: "New notification",
};

const de: Strings = {
  notifications: "Benachrichtigungen",
  unreadCount: (n) => `${n} ungelesen`,
  markAllRead: "Alle als gelesen markieren",
  archive: "Archivieren",
  empty: "Noch keine Benachrichtigungen",
  loading: "Wird geladen …",
  failed: "Benachrichtigungen konnten nicht geladen werden",
  unread: "Ungelesen",
  newItem: "Neue Benachrichtigung",
};

const LOCALES: Record<string, Strings> = { en, de };

/** The strings and the locale tag used for dates: the given locale, its language, else English. */
export function stringsFor(locale: string | null | undefined): { tag: string; strings: Strings } {
  const tag = (locale ?? "").trim().replace(/_/g, "-");
  const language = tag.split("-")[0]!.toLowerCase();
  const strings = LOCALES[language];
  return strings ? { tag: tag || language, strings } : { tag: "en", strings: en };
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 31_536_000],
  ["month", 2_592_000],
  ["week", 604_800],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

/** "5 minutes ago" / "vor 5 Minuten". */
export function relativeTime(tag: string, then: Date, now: Date): string {
  const seconds = Math.round((then.getTime() - now.getTime()) / 1000);
  const format = new Intl.RelativeTimeFormat(tag, { numeric: "auto" });
  for (const [unit, size] of UNITS)
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return format.format(0, "minute");
}
