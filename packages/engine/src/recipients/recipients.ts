import { AppError, type Principal } from "@svc/core";
import {
  deleteAddress,
  findAddress,
  findRecipientPage,
  findRecipientWithAddresses,
  saveAddress,
  type PrismaClient,
} from "@svc/store";
import { pageWindow, toPage, type PageRequest } from "../shared/paging";
import { checkProfile, writeProfile, type RecipientProfileInput } from "./recipient-profile";
import { serializeRecipient } from "./serialize-recipient";

type Deps = { prisma: PrismaClient; now: () => Date };

const viewFor = (principal: Principal) => ({ redactPreferences: principal.agentKey !== null });

/** Agent keys may read profiles but write nothing about people (DECISIONS "Agents"). */
export function assertMayWritePeople(principal: Principal): void {
  if (principal.agentKey) throw new AppError("forbidden", "agent keys may not change recipients");
}

async function load(prisma: PrismaClient, externalId: string) {
  const row = await findRecipientWithAddresses(prisma, externalId);
  if (!row) throw new AppError("not_found", `no recipient '${externalId}'`);
  return row;
}

export async function putRecipient(
  { prisma, now }: Deps,
  principal: Principal,
  externalId: string,
  input: RecipientProfileInput,
) {
  assertMayWritePeople(principal);
  checkProfile(input, ["body"]);
  const { created } = await prisma.$transaction((tx) => writeProfile(tx, externalId, input, now()));
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
  { prisma, now }: Deps,
  principal: Principal,
  externalId: string,
  input: { channel: string; value: string; enabled?: boolean },
) {
  assertMayWritePeople(principal);
  const recipient = await load(prisma, externalId);
  const key = { recipient_id: recipient.id, channel: input.channel, value: input.value };
  const existing = await findAddress(prisma, key);
  const row = await saveAddress(prisma, key, input.enabled ?? existing?.enabled ?? true, now());
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
