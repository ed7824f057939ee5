import { toE164 } from "../phone-number";

// docs/texting.md "Numbers". Postgres computes the same for the generated column
// addresses.e164; packages/store (address-e164.test.ts) holds the two equal.
const E164_CASES: [input: string, e164: string | null][] = [
  ["+15551234567", "+15551234567"],
  ["+1 (555) 123-4567", "+15551234567"],
  ["+1.555.123.4567", "+15551234567"],
  [" +1 555 123 4567 ", "+15551234567"],
  ["+1\t555\u00A0123\n4567", "+15551234567"],
  ["0015551234567", "+15551234567"],
  ["0049 170 1234567", "+491701234567"],
  ["+491701234567", "+491701234567"],
  ["+999999999999999", "+999999999999999"], // 15 digits
  ["+9999999999999999", null], // 16 digits
  ["+0155512345", null], // no country code starts with 0
  ["5551234567", null], // national: no country code
  ["15551234567", null],
  ["+1-555-CALL-NOW", null],
  ["whatsapp:+15551234567", null],
  ["+1 555 123 4567 ext 2", null],
  ["+1/555/1234567", null],
  ["+1\u2009555\u20091234567", null], // thin spaces are not separators
  ["++15551234567", null],
  ["+", null],
  ["", null],
];

test.each(E164_CASES)("toE164(%j) = %j", (input, e164) => {
  expect(toE164(input)).toBe(e164);
});
