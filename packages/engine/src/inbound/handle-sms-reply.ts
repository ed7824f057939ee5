import { newId, parseSmsReply, sha256Hex, smsReplyEffect, toE164, type SmsReplyAction } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import {
  $transaction,
  deleteSmsSuppression,
  findInboundReply,
  findRecipientsWithNumber,
  insertInboundReply,
  listCategoriesOpenToUnsubscribe,
  lockPhoneNumbers,
  saveSmsSuppression,
  type RootDatabase,
  type Transaction,
} from "@svc/store";
import { changePreferences } from "../recipients/preferences";
import { validationError } from "../shared/validation";
import { NUMBER_LOCK_TRANSACTION } from "../recipients/suppressed-numbers";

// A text reply, reported by the backend (`POST /v1/inbound/sms`) or by the provider's webhook
// (`POST /v1/inbound/smsprovider`): STOP and START act on every person with the number, anything
// else changes nothing (docs/texting.md "STOP and START").

export interface InboundSmsInput {
  from: string;
  body: string;
  /** The provider's message id (Twilio's MessageSid), or the backend's own id for the reply. */
  messageId: string;
}

/** Who reported the reply: the provider's webhook, or a backend with an API key. */
export type InboundSmsSource = { provider: "twilio" } | { apiKeyId: string };

export interface InboundSmsResult {
  action: SmsReplyAction;
  /** People whose preferences changed (one ledger entry each). */
  recipients: number;
  /** The message id was reported before: nothing changed this time. */
  duplicate: boolean;
}

export interface InboundSmsDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "compliance">;
  now: () => Date;
}

/** `api` for replies the backend reports; inbound_replies is unique per (provider, message id). */
const providerOf = (source: InboundSmsSource) => ("provider" in source ? source.provider : "api");

export async function handleInboundSms(
  deps: InboundSmsDeps,
  source: InboundSmsSource,
  input: InboundSmsInput,
  loc: { from: (string | number)[] } = { from: ["body", "from"] },
): Promise<InboundSmsResult> {
  const from = toE164(input.from);
  if (from === null) {
    throw validationError([
      {
        loc: loc.from,
        msg: "expected a phone number in E.164 form: + and the country code, e.g. +15551234567",
        type: "value_error",
      },
    ]);
  }
  const reply = parseSmsReply(input.body);
  const provider = providerOf(source);
  return $transaction(
    deps.prisma,
    async (tx): Promise<InboundSmsResult> => {
      const now = deps.now();
      // First the number's lock: replies for one number, and profile writes adding it, go one at a time.
      await lockPhoneNumbers(tx, [from]);
      const recorded = await insertInboundReply(tx, {
        id: newId("inbound"),
        provider,
        provider_message_id: input.messageId,
        from,
        body: input.body,
        keyword: reply.keyword,
        action: reply.action,
        api_key_id: "apiKeyId" in source ? source.apiKeyId : null,
        created_at: now,
      });
      if (!recorded) {
        const first = await findInboundReply(tx, provider, input.messageId);
        return { action: (first?.action ?? reply.action) as SmsReplyAction, recipients: 0, duplicate: true };
      }
      if (reply.action === "none") return { action: "none", recipients: 0, duplicate: false };
      const provenance = {
        method: "sms_reply",
        keyword: reply.keyword,
        from,
        message_id: input.messageId,
        ...("provider" in source ? { provider: source.provider } : { api_key: source.apiKeyId }),
      };
      const changed = await applyKeyword(tx, deps, reply.action, from, provenance, now);
      if (reply.action === "stop") await saveSmsSuppression(tx, sha256Hex(from), reply.keyword!, now);
      else await deleteSmsSuppression(tx, sha256Hex(from));
      return { action: reply.action, recipients: changed, duplicate: false };
    },
    NUMBER_LOCK_TRANSACTION,
  );
}

/** STOP or START for every person with the number; returns how many changed. */
async function applyKeyword(
  tx: Transaction,
  deps: InboundSmsDeps,
  action: "stop" | "start",
  from: string,
  provenance: Record<string, unknown>,
  now: Date,
): Promise<number> {
  const textChannels = deps.config.compliance.sms_channels;
  const optionalCategories =
    action === "stop" ? (await listCategoriesOpenToUnsubscribe(tx)).map((c) => c.key) : [];
  let changed = 0;
  for (const person of await findRecipientsWithNumber(tx, from, textChannels)) {
    const change = smsReplyEffect({
      action,
      textChannels,
      optionalCategories,
      mutedChannels: person.muted_channels,
      unsubscribedCategories: person.unsubscribed_categories,
    });
    if (!change) continue;
    const result = await changePreferences(tx, person.id, change, { source: "sms_keyword", provenance }, now);
    if (result.changed) changed += 1;
  }
  return changed;
}
