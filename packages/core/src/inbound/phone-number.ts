// Phone numbers compared in E.164 (docs/texting.md "Numbers"): `+`, a country code, at most 15
// digits. Separators people type are dropped and a leading `00` reads as `+`; anything else
// (no country code, letters, a `whatsapp:` prefix) is not a number svc can compare.
//
// The same rule is written in SQL for the generated column `addresses.e164`
// (prisma/migrations/*_address_e164); a test holds the two equal.

/** Characters dropped before reading a number: spaces, tab, newline, no-break space, ( ) . - */
const SEPARATORS = /[ \t\n\r\u00A0().-]/g;
const INTERNATIONAL = /^(?:\+|00)([1-9][0-9]{1,14})$/;

/** The number in E.164 form (`+15551234567`), or null when `value` is not one. */
export function toE164(value: string): string | null {
  const match = INTERNATIONAL.exec(value.replace(SEPARATORS, ""));
  return match ? `+${match[1]}` : null;
}
