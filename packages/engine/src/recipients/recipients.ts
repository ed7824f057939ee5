import { AppError, type Principal } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import {
  $transaction,
  deleteAddress,
  findAddress,
  findRecipientPage,
  findRecipientWithAddresses,
  lockRecipient,
  saveAddress,
  type RootDatabase,
} from "@svc/store";
import {
  lockTextNumbers,
  muteSuppressedNumbers,
  NUMBER_LOCK_TRANSACTION,
  textNumbersOf,
} from "./suppressed-numbers";
import { pageWindow, toPage, type PageRequest } from "../shared/paging";
import { validationError } from "../shared/validation";
import { addressIssues } from "./address-check";
import { assertMayWritePeople } from "../shared/may-write-people";
import { checkProfile, writeProfile, type RecipientProfileInput } from "./recipient-profile";
import { serializeRecipient } from "./serialize-recipient";

type Deps = { prisma: RootDatabase; now: () => Date };
/** Writers of addresses also read compliance.sms_channels (a suppressed text number mutes texts). */
type WriteDeps = Deps & { config: Pick<SvcConfig, "compliance" | "channels"> };

const viewFor = (principal: Principal) => ({ redactPreferences: principal.agentKey !== null });

async function load(prisma: RootDatabase, externalId: string) {
  const row = await findRecipientWithAddresses(prisma, externalId);
  if (!row) throw new AppError("not_found", `no recipient '${externalId}'`);
  return row;
}

export async function putRecipient(
  { prisma, now, config }: WriteDeps,
  principal: Principal,
  externalId: string,
  input: RecipientProfileInput,
) {
  assertMayWritePeople(principal);
  checkProfile(input, ["body"], config);
  const { created } = await $transaction(
    prisma,
    async (tx) => {
      // The person's lock first, as ingest takes it before its own profile writes (and before any
      // number's): of concurrent first PUTs of one person, one creates and the others update.
      await lockRecipient(tx, externalId);
      return writeProfile(tx, externalId, input, now(), config.compliance.sms_channels);
    },
    NUMBER_LOCK_TRANSACTION,
  );
  return { created, recipient: serializeRecipient(await load(prisma, externalId), viewFor(principal)) };
}

export async function getRecipient({ prisma }: Deps, principal: Principal, externalId: string) {
  return serializeRecipient(await load(prisma, externalId), viewFor(principal));
}

export async function listRecipients({ prisma }: Deps, principal: Principal, request: PageRequest) {
  const window = pageWindow(request);
  const rows = await findRecipientPage(prisma, window);
  return toPage(
    rows,
    window,
    (row) => row.id,
    (row) => serializeRecipient(row, viewFor(principal)),
  );
}

/** POST …/addresses: a new address is 201; an existing channel and value only changes `enabled` (200). */
export async function addAddress(
  { prisma, now, config }: WriteDeps,
  principal: Principal,
  externalId: string,
  input: { channel: string; value: string; enabled?: boolean },
) {
  assertMayWritePeople(principal);
  const issues = addressIssues(config, [input], () => ["body", "value"]);
  if (issues.length > 0) throw validationError(issues);
  const recipient = await load(prisma, externalId);
  const key = { recipient_id: recipient.id, channel: input.channel, value: input.value };
  const textChannels = config.compliance.sms_channels;
  const numbers = textNumbersOf([input], textChannels);
  const { existing, row } = await $transaction(
    prisma,
    async (tx) => {
      await lockTextNumbers(tx, numbers);
      const existing = await findAddress(tx, key);
      const row = await saveAddress(tx, key, input.enabled ?? existing?.enabled ?? true, now());
      await muteSuppressedNumbers(tx, recipient.id, numbers, textChannels, now());
      return { existing, row };
    },
    NUMBER_LOCK_TRANSACTION,
  );
  return { created: !existing, address: { channel: row.channel, value: row.value, enabled: row.enabled } };
}

export async function removeAddress(
  { prisma }: Deps,
  principal: Principal,
  externalId: string,
  channel: string,
  value: string,
) {
  assertMayWritePeople(principal);
  const recipient = await load(prisma, externalId);
  const removed = await deleteAddress(prisma, { recipient_id: recipient.id, channel, value });
  if (!removed)
    throw new AppError("not_found", `recipient '${externalId}' has no ${channel} address '${value}'`);
}
