import { randomBytes } from "node:crypto";
import { newId } from "@svc/core";
import { batchDeliveryLinks, writeProfile, type RecipientProfileInput } from "@svc/engine";
import { startHarness, type Harness, type HarnessOptions } from "./service-harness";

// Factories for the recipients' rights tests: people, categories, messages with their links.

export const SECRET_KEY = "test-secret-key-for-link-tokens-0123456789";

/** A harness whose link secret is known, so tests can derive the tokens a person receives. */
export function startRightsHarness(name: string, options: HarnessOptions = {}): Promise<Harness> {
  return startHarness(name, { secretKey: SECRET_KEY, ...options });
}

export async function makePerson(h: Harness, externalId: string, profile: RecipientProfileInput = {}) {
  await h.prisma.$transaction((tx) =>
    writeProfile(tx, externalId, profile, new Date(), h.config.compliance.sms_channels),
  );
  return h.prisma.recipient.findUniqueOrThrow({ where: { external_id: externalId } });
}

export async function makeCategory(
  h: Harness,
  key: string,
  fields: { allow_unsubscribe?: boolean; description?: string } = {},
) {
  await h.prisma.category.create({
    data: { key, description: fields.description ?? "", allow_unsubscribe: fields.allow_unsubscribe ?? true },
  });
}

export async function makeMessage(
  h: Harness,
  person: { id: string; external_id: string },
  fields: { category?: string; status?: "queued" | "sent"; event_id?: string; generation?: number } = {},
) {
  return h.prisma.message.create({
    data: {
      id: newId("message"),
      status: fields.status ?? "sent",
      recipient_id: person.id,
      recipient_external_id: person.external_id,
      sender: "backend",
      category: fields.category ?? "marketing",
      importance: "normal",
      claimed_importance: "normal",
      channels: ["console"],
      event_id: fields.event_id ?? null,
      generation: fields.generation ?? 0,
      send_at: new Date(),
      link_nonce: randomBytes(32).toString("base64url"),
    },
  });
}

/**
 * A delivered message's links, as the delivery worker makes them (hashes stored), for content that
 * links to the preference page, so the person's preference URL is among them.
 */
export async function linksOf(h: Harness, message: { id: string; link_nonce: string; recipient_id: string }) {
  const [links] = await batchDeliveryLinks(
    h.prisma,
    { secretKey: SECRET_KEY, publicUrl: h.config.api.public_url },
    [
      {
        ...message,
        content: { body: "Manage your settings: [[svc:preferences_url]]" },
        unsubscribe_token_hash: null,
        tracking_token_hash: null,
      },
    ],
    new Date(),
  );
  return { ...links!, tracking_token: links!.tracking_token! };
}

export const tokenOfUrl = (url: string): string => /\/preferences\/([A-Za-z0-9_-]{43})/.exec(url)![1]!;
