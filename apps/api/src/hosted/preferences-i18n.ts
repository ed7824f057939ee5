// Strings of the hosted preference pages. English is complete and the fallback; other languages
// may leave keys out. The person's locale picks the language (`de-AT` → `de`).

interface PageStrings {
  title: string;
  intro: string;
  categoriesLegend: string;
  categoriesHint: string;
  noCategories: string;
  channelsLegend: string;
  channelsHint: string;
  quietLegend: string;
  quietHint: string;
  quietFrom: string;
  quietTo: string;
  save: string;
  saved: string;
  linkCategory: string;
  unsubscribeFrom: string;
  confirmTitle: string;
  confirmText: string;
  confirmButton: string;
  unsubscribedTitle: string;
  unsubscribedText: string;
  alreadyUnsubscribedText: string;
  managePreferences: string;
  errorSummary: string;
  quietBoth: string;
  quietFormat: string;
  channelNames: Record<string, string>;
  /** Names for built-in categories, whose stored descriptions are written for operators. */
  categoryNames: Record<string, string>;
}

const en: PageStrings = {
  title: "Notification preferences",
  intro: "Choose which messages you receive and how they reach you.",
  categoriesLegend: "Messages I want to receive",
  categoriesHint:
    "Untick a kind of message to stop receiving it. Messages you need, such as receipts and security alerts, are always sent.",
  noCategories: "There are no optional messages to choose from.",
  channelsLegend: "Channels to mute",
  channelsHint: "You receive nothing through a ticked channel.",
  quietLegend: "Quiet hours",
  quietHint:
    "Messages that can wait are held during these hours, in your local time. Leave both empty to use the usual quiet hours.",
  quietFrom: "From",
  quietTo: "Until",
  save: "Save preferences",
  saved: "Your preferences have been saved.",
  linkCategory: "You came here from a message of the kind “{category}”.",
  unsubscribeFrom: "Unsubscribe from “{category}”",
  confirmTitle: "Unsubscribe",
  confirmText: "Do you want to stop receiving messages of the kind “{category}”?",
  confirmButton: "Unsubscribe",
  unsubscribedTitle: "You are unsubscribed",
  unsubscribedText: "You will no longer receive messages of the kind “{category}”.",
  alreadyUnsubscribedText: "You had already unsubscribed from messages of the kind “{category}”.",
  managePreferences: "Manage all preferences",
  errorSummary: "Please correct the following:",
  quietBoth: "Give both a start and an end time for quiet hours, or leave both empty.",
  quietFormat: "Quiet hours need times of day such as 22:00.",
  channelNames: {
    email: "E-mail",
    sms: "Text messages (SMS)",
    push: "Push notifications",
    webpush: "Browser notifications",
    slack: "Slack",
  },
  categoryNames: { marketing: "Offers and promotions" },
};

const de: Partial<PageStrings> = {
  title: "Benachrichtigungseinstellungen",
  intro: "Legen Sie fest, welche Nachrichten Sie erhalten und auf welchem Weg.",
  categoriesLegend: "Nachrichten, die ich erhalten möchte",
  categoriesHint:
    "Entfernen Sie das Häkchen, um eine Art von Nachrichten nicht mehr zu erhalten. Notwendige Nachrichten wie Belege und Sicherheitshinweise werden immer gesendet.",
  noCategories: "Es gibt keine optionalen Nachrichten zur Auswahl.",
  channelsLegend: "Stummgeschaltete Kanäle",
  channelsHint: "Über einen markierten Kanal erhalten Sie nichts.",
  quietLegend: "Ruhezeiten",
  quietHint:
    "Nachrichten, die warten können, werden in diesen Stunden (Ihre Ortszeit) zurückgehalten. Lassen Sie beide Felder leer, um die üblichen Ruhezeiten zu verwenden.",
  quietFrom: "Von",
  quietTo: "Bis",
  save: "Einstellungen speichern",
  saved: "Ihre Einstellungen wurden gespeichert.",
  linkCategory: "Sie kommen von einer Nachricht der Art „{category}“.",
  unsubscribeFrom: "Von „{category}“ abmelden",
  confirmTitle: "Abmelden",
  confirmText: "Möchten Sie keine Nachrichten der Art „{category}“ mehr erhalten?",
  confirmButton: "Abmelden",
  unsubscribedTitle: "Sie sind abgemeldet",
  unsubscribedText: "Sie erhalten keine Nachrichten der Art „{category}“ mehr.",
  alreadyUnsubscribedText: "Sie hatten sich von Nachrichten der Art „{category}“ bereits abgemeldet.",
  managePreferences: "Alle Einstellungen verwalten",
  errorSummary: "Bitte korrigieren Sie Folgendes:",
  quietBoth: "Geben Sie für die Ruhezeiten Beginn und Ende an oder lassen Sie beide Felder leer.",
  quietFormat: "Ruhezeiten brauchen Uhrzeiten wie 22:00.",
  channelNames: {
    email: "E-Mail",
    sms: "SMS",
    push: "Push-Benachrichtigungen",
    webpush: "Browser-Benachrichtigungen",
    slack: "Slack",
  },
  categoryNames: { marketing: "Angebote und Aktionen" },
};

const DICTIONARIES: Record<string, Partial<PageStrings>> = { en, de };

export interface Strings extends PageStrings {
  lang: string;
}

/** The language of a locale (`de-AT` → `de`) when `dictionaries` has it, else English. */
export function pageLanguage(locale: string | null | undefined, dictionaries: object): string {
  const language = (locale ?? "").toLowerCase().split(/[-_]/)[0] ?? "";
  return Object.hasOwn(dictionaries, language) ? language : "en";
}

/** The page language for a locale, falling back to English per missing string. */
export function stringsFor(locale: string | null | undefined): Strings {
  const lang = pageLanguage(locale, DICTIONARIES);
  const chosen = DICTIONARIES[lang] ?? {};
  return {
    ...en,
    ...chosen,
    channelNames: { ...en.channelNames, ...chosen.channelNames },
    categoryNames: { ...en.categoryNames, ...chosen.categoryNames },
    lang,
  };
}

/** Fills `{name}` slots. */
export const fill = (text: string, values: Record<string, string>): string =>
  text.replace(/\{(\w+)\}/g, (match, name: string) => values[name] ?? match);
