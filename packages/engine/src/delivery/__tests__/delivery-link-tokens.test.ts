import { parseConfig } from "@svc/config";
import { linkTokenHash, messageLinkTokens } from "@svc/core";
import { $transaction, findMessageByUnsubscribeTokenHash, lockRecipients, type MessageRow } from "@svc/store";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { composeMessagesOfPeople } from "../../compose/compose-batch";
import {
  baseRequest,
  compose,
  makeRecipient,
  makeTemplate,
  NOW,
} from "../../compose/__tests__/compose-fixtures";
import { batchDeliveryLinks } from "../delivery-links-batch";

// Link tokens at delivery (docs/preferences.md "Tokens"): a message's hashes are stored with it
// when it is composed, and delivery writes them only where they are missing or were made with
// another SVC_SECRET_KEY; a person's preference token is read (or created) only for content that
// links to the preference page.

const KEY = "k".repeat(48);
const OTHER_KEY = "o".repeat(48);
const configWith = (secretKey?: string) =>
  parseConfig(
    { channels: { email: { provider: "console" } } },
    secretKey ? { SVC_SECRET_KEY: secretKey } : {},
  );

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("delivery_link_tokens");
});
afterAll(() => db.drop());

const expectedHashes = (key: string, message: MessageRow) => {
  const tokens = messageLinkTokens(key, message);
  return { unsubscribe_token_hash: tokens.unsubscribeHash, tracking_token_hash: tokens.trackingHash };
};

/** The row's transaction id: it changes whenever the row is written. */
async function versionOf(id: string): Promise<string> {
  const [row] = await db.prisma.$queryRaw<
    { xmin: string }[]
  >`SELECT xmin::text FROM messages WHERE id = ${id}`;
  return row!.xmin;
}

async function composedWith(secretKey?: string, body = "{{ data.msg }}"): Promise<MessageRow> {
  const recipient = await makeRecipient(db.prisma);
  const template = await makeTemplate(db.prisma, { en: { title: "Hi", body } });
  const { message } = await compose(db.prisma, baseRequest(recipient.id, template.key), {
    config: configWith(secretKey),
  });
  return message;
}

const links = (key: string, messages: MessageRow[]) =>
  batchDeliveryLinks(db.prisma, { secretKey: key, publicUrl: "https://svc.example" }, messages, NOW);

test("a message composed with the secret key stores its unsubscribe and tracking hashes", async () => {
  const message = await composedWith(KEY);
  expect(message.unsubscribe_token_hash).toMatch(/^[0-9a-f]{64}$/);
  expect(await db.prisma.message.findUniqueOrThrow({ where: { id: message.id } })).toMatchObject(
    expectedHashes(KEY, message),
  );
});

test("so do the messages of a group composed at once", async () => {
  const people = [await makeRecipient(db.prisma), await makeRecipient(db.prisma)];
  const template = await makeTemplate(db.prisma);
  const outcomes = await $transaction(db.prisma, async (tx) => {
    await lockRecipients(
      tx,
      people.map((p) => p.id),
    );
    return composeMessagesOfPeople(
      tx,
      { config: configWith(KEY), now: () => NOW },
      people.map((p) => baseRequest(p.id, template.key)),
    );
  });
  for (const outcome of outcomes) {
    if (!outcome.ok) throw outcome.error;
    const stored = await db.prisma.message.findUniqueOrThrow({ where: { id: outcome.result.message.id } });
    expect(stored).toMatchObject(expectedHashes(KEY, stored));
  }
});

test("delivery with the same key does not write the message again", async () => {
  const message = await composedWith(KEY);
  const before = await versionOf(message.id);
  const [values] = await links(KEY, [message]);
  expect(await versionOf(message.id)).toBe(before);
  const token = values!.unsubscribe_url!.split("/preferences/")[1]!;
  expect(await findMessageByUnsubscribeTokenHash(db.prisma, linkTokenHash(token))).toMatchObject({
    id: message.id,
  });
});

test("a message composed without the key gets its hashes at delivery", async () => {
  const message = await composedWith();
  expect(message).toMatchObject({ unsubscribe_token_hash: null, tracking_token_hash: null });
  const [values] = await links(KEY, [message]);
  const stored = await db.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
  expect(stored).toMatchObject(expectedHashes(KEY, message));
  expect(linkTokenHash(values!.tracking_token!)).toBe(stored.tracking_token_hash);
});

test("after SVC_SECRET_KEY changed, delivery stores the new key's hashes so the links it hands out work", async () => {
  const message = await composedWith(KEY);
  const [values] = await links(OTHER_KEY, [message]);
  const stored = await db.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
  expect(stored).toMatchObject(expectedHashes(OTHER_KEY, message));
  const token = values!.unsubscribe_url!.split("/preferences/")[1]!;
  expect(await findMessageByUnsubscribeTokenHash(db.prisma, linkTokenHash(token))).toMatchObject({
    id: message.id,
  });
});

describe("the person's preference token", () => {
  const tokensOf = (recipientId: string) =>
    db.prisma.preferenceToken.count({ where: { recipient_id: recipientId } });

  test("content without a link to the preference page: none is created, preferences_url is null", async () => {
    const message = await composedWith(KEY, "Order shipped. Leave: {{ recipient.unsubscribe_url }}");
    const [values] = await links(KEY, [message]);
    expect(values!.preferences_url).toBeNull();
    expect(values!.unsubscribe_url).toMatch(/^https:\/\/svc\.example\/preferences\/[A-Za-z0-9_-]{43}$/);
    expect(await tokensOf(message.recipient_id)).toBe(0);
  });

  test("content linking to it: created on first delivery, the same one the next time", async () => {
    const first = await composedWith(KEY, "Settings: {{ recipient.preferences_url }}");
    const [values] = await links(KEY, [first]);
    expect(await tokensOf(first.recipient_id)).toBe(1);
    const stored = await db.prisma.preferenceToken.findUniqueOrThrow({
      where: { recipient_id: first.recipient_id },
    });
    const token = values!.preferences_url!.split("/preferences/")[1]!;
    expect(linkTokenHash(token)).toBe(stored.token_hash);
    const [again] = await links(KEY, [first]);
    expect(again!.preferences_url).toBe(values!.preferences_url);
  });
});
