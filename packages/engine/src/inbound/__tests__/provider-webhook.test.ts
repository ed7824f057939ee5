import { parseConfig } from "@svc/config";
import { isAppError } from "@svc/core";
import { twilioSignature } from "@svc/providers";
import { providerWebhookAuth, verifyTwilioWebhook, type ProviderWebhookAuth } from "../provider-webhook";

// Which auth tokens check Twilio's webhook (docs/texting.md "Twilio"), and what is refused.

const twilio = (tokenEnv: string) => ({
  provider: "twilio",
  account_sid: "AC1",
  auth_token_env: tokenEnv,
  from: "+15550100",
});

test("the tokens of the twilio channels listed in compliance.sms_channels, failover lists included", () => {
  const config = parseConfig({
    api: { public_url: "https://svc.example.com" },
    channels: {
      sms: twilio("TOKEN_A"),
      backup: {
        ...twilio("TOKEN_B"),
        provider: undefined,
        providers: ["webhook", "twilio"],
        url: "https://x.example",
      },
      unlisted: twilio("TOKEN_C"),
      hook: { provider: "webhook", url: "https://x.example", secret_env: "TOKEN_D" },
      unset: twilio("TOKEN_UNSET"),
    },
    compliance: { sms_channels: ["sms", "backup", "hook", "unset"] },
  });
  const env = { TOKEN_A: "a", TOKEN_B: "b", TOKEN_C: "c", TOKEN_D: "d" };
  expect(providerWebhookAuth(config, env)).toEqual({
    publicUrl: "https://svc.example.com",
    authTokens: ["a", "b"],
  });
});

const refusal = (auth: ProviderWebhookAuth, signature: string | undefined) => {
  try {
    verifyTwilioWebhook(auth, {
      pathAndQuery: "/v1/inbound/smsprovider",
      params: { Body: "STOP" },
      signature,
    });
  } catch (error) {
    if (isAppError(error)) return { status: error.status, detail: error.detail };
    throw error;
  }
  return null;
};

test.each<[string, ProviderWebhookAuth, string | undefined, number | null, RegExp | null]>([
  [
    "signed with the second token",
    { publicUrl: "https://s.example", authTokens: ["x", "y"] },
    "y",
    null,
    null,
  ],
  [
    "no public URL",
    { publicUrl: null, authTokens: ["x"] },
    "x",
    403,
    /api\.public_url, the address Twilio signs, is not configured/,
  ],
  [
    "no token",
    { publicUrl: "https://s.example", authTokens: [] },
    "x",
    403,
    /no twilio channel with an auth token is listed in compliance\.sms_channels/,
  ],
  ["no signature", { publicUrl: "https://s.example", authTokens: ["x"] }, undefined, 403, /missing/],
])("%s", (_why, auth, token, status, detail) => {
  const signature =
    token === undefined
      ? undefined
      : twilioSignature(token, "https://s.example/v1/inbound/smsprovider", { Body: "STOP" });
  const result = refusal(auth, signature);
  if (status === null) expect(result).toBeNull();
  else {
    expect(result?.status).toBe(status);
    expect(result?.detail).toMatch(detail!);
  }
});
