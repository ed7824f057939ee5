import { isIanaTimeZone, looksLikeSecretKey } from "../index";

describe("looksLikeSecretKey", () => {
  const cases: [string, boolean][] = [
    ["secret", true],
    ["client_secret", true],
    ["secret_key", true],
    ["password", true],
    ["smtp_password", true],
    ["auth_token", true],
    ["bot_token", true],
    ["api_key", true],
    ["apiKey", true],
    ["authToken", true],
    ["secretEnv", false],
    ["apikey", true],
    ["private_key", true],
    ["vapid_private_key", true],
    ["key", true],
    ["Authorization", true],
    ["credentials", true],
    ["secret_env", false],
    ["auth_token_env", false],
    ["key_id", false],
    ["vapid_public_key", false],
    ["max_tokens", false],
    ["account_sid", false],
    ["url", false],
    ["from", false],
  ];
  it.each(cases)("%s → %s", (name, expected) => {
    expect(looksLikeSecretKey(name)).toBe(expected);
  });
});

describe("isIanaTimeZone", () => {
  const cases: [string, boolean][] = [
    ["UTC", true],
    ["Europe/Berlin", true],
    ["America/Argentina/Buenos_Aires", true],
    ["Mars/Olympus", false],
    ["+01:00", false],
    ["", false],
  ];
  it.each(cases)("%j → %s", (zone, expected) => {
    expect(isIanaTimeZone(zone)).toBe(expected);
  });
});
