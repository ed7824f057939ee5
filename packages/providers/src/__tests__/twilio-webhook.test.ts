import { createHmac } from "node:crypto";
import twilio from "twilio";
import { emptyTwilioReply, twilioSignature, verifyTwilioSignature } from "../twilio-webhook";

// X-Twilio-Signature as Twilio computes it. The vectors are Twilio's own: the example of its
// webhook-security documentation and the request-validator tests of its helper libraries
// (twilio-php, twilio-csharp: RequestValidatorTest), auth token "12345".

const TOKEN = "12345";
const URL = "https://mycompany.com/myapp.php?foo=1&bar=2";
const PARAMS = {
  CallSid: "CA1234567890ABCDE",
  Caller: "+14158675309",
  Digits: "1234",
  From: "+14158675309",
  To: "+18005551212",
};
const SIGNATURE = "RSOYDt4T1cUTdK1PDd93/VVr8B8=";

it("matches Twilio's published vector", () => {
  expect(twilioSignature(TOKEN, URL, PARAMS)).toBe(SIGNATURE);
  expect(verifyTwilioSignature(TOKEN, URL, PARAMS, SIGNATURE)).toBe(true);
});

it("matches the vector with a mixed-case host (signed as given)", () => {
  const url = "https://MyCompany.com/myapp.php?foo=1&bar=2";
  expect(verifyTwilioSignature(TOKEN, url, PARAMS, "g9IN/x4Cft2g517EjYvEvM/W7LU=")).toBe(true);
});

it("is base64 HMAC-SHA1 of the URL and the name/value pairs sorted by name", () => {
  const expected = createHmac("sha1", "tok").update("https://a.example/hookA1B2").digest("base64");
  expect(twilioSignature("tok", "https://a.example/hook", { B: "2", A: "1" })).toBe(expected);
});

it("accepts a signature made over the URL with its default port, and without", () => {
  const withPort = twilioSignature(TOKEN, "https://mycompany.com:443/myapp.php?foo=1&bar=2", PARAMS);
  expect(verifyTwilioSignature(TOKEN, URL, PARAMS, withPort)).toBe(true);
});

it.each([
  ["another auth token", "54321", URL, PARAMS, SIGNATURE],
  ["a tampered signature", TOKEN, URL, PARAMS, "RSOYDt4T1cUTdK1PDd93/VVr8B9="],
  ["a tampered parameter", TOKEN, URL, { ...PARAMS, Digits: "9999" }, SIGNATURE],
  ["an extra parameter", TOKEN, URL, { ...PARAMS, Body: "STOP" }, SIGNATURE],
  ["another query string", TOKEN, `${URL}&x=1`, PARAMS, SIGNATURE],
  ["another path", TOKEN, "https://mycompany.com/other.php?foo=1&bar=2", PARAMS, SIGNATURE],
  ["no signature", TOKEN, URL, PARAMS, undefined],
  ["an empty signature", TOKEN, URL, PARAMS, ""],
])("refuses %s", (_why, token, url, params, signature) => {
  expect(verifyTwilioSignature(token, url, params, signature)).toBe(false);
});

it("is the twilio package's own validator, as twilio.validateRequest", () => {
  const signature = twilioSignature(TOKEN, URL, PARAMS);
  expect(signature).toBe(twilio.getExpectedTwilioSignature(TOKEN, URL, PARAMS));
  expect(twilio.validateRequest(TOKEN, signature, URL, PARAMS)).toBe(true);
});

it("answers with an empty TwiML response", () => {
  expect(emptyTwilioReply()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
  expect(emptyTwilioReply()).toBe(new twilio.twiml.MessagingResponse().toString());
});
