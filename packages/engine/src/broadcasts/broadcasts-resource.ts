import { AppError, newId, type Principal } from "@svc/core";
import {
  $transaction,
  deleteBroadcastMembers,
  findBroadcast,
  findBroadcastPage,
  insertBroadcast,
  insertBroadcastMembers,
  updateDraftBroadcast,
  type BroadcastRow,
  type RootDatabase,
} from "@svc/store";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import {
  broadcastFieldsOf,
  checkBroadcastInput,
  prepareAudience,
  type BroadcastInput,
  type BroadcastPatchInput,
} from "./broadcast-input";
import { serializeBroadcast, type BroadcastView } from "./serialize-broadcast";

// Create, read, list and edit (docs/broadcasts.md). Broadcasts have server ids; a draft can be
// replaced (PUT) or changed (PATCH), anything past `draft` answers 409 `Invalid state`.

export interface BroadcastResourceDeps {
  prisma: RootDatabase;
  now: () => Date;
}

export interface ListBroadcastsQuery extends PageRequest {
  status?: BroadcastRow["status"];
}

// A 100,000-id list goes in with the row, in one transaction.
const WRITE = { timeout: 60_000, maxWait: 10_000 };

export async function createBroadcast(
  deps: BroadcastResourceDeps,
  principal: Principal,
  input: BroadcastInput,
): Promise<BroadcastView> {
  await checkBroadcastInput(deps.prisma, input);
  const now = deps.now();
  const audience = prepareAudience(input.audience);
  const id = newId("broadcast", now.getTime());
  const row = await $transaction(
    deps.prisma,
    async (tx) => {
      const created = await insertBroadcast(tx, {
        id,
        ...(broadcastFieldsOf(
          { importance: "normal", data: {}, send_at: null, rate_per_second: null, ...input },
          audience,
        ) as Required<ReturnType<typeof broadcastFieldsOf>>),
        total: null,
        created_by_key_id: principal.keyId,
        created_at: now,
      });
      if (audience.members) await insertBroadcastMembers(tx, id, 0, audience.members);
      return created;
    },
    WRITE,
  );
  return serializeBroadcast(deps.prisma, row);
}

export async function loadBroadcast(deps: { prisma: RootDatabase }, id: string): Promise<BroadcastRow> {
  const row = await findBroadcast(deps.prisma, id);
  if (!row) throw new AppError("not_found", `no broadcast '${id}'`);
  return row;
}

export async function getBroadcast(deps: { prisma: RootDatabase }, id: string): Promise<BroadcastView> {
  return serializeBroadcast(deps.prisma, await loadBroadcast(deps, id));
}

/** Newest first, filtered by status. */
export async function listBroadcasts(
  deps: { prisma: RootDatabase },
  query: ListBroadcastsQuery,
): Promise<Page<BroadcastView>> {
  const window = pageWindow(query);
  const rows = await findBroadcastPage(deps.prisma, { status: query.status }, window);
  const page = toPage(
    rows,
    window,
    (row) => row.id,
    (row) => row,
  );
  return {
    items: await Promise.all(page.items.map((row) => serializeBroadcast(deps.prisma, row))),
    next_cursor: page.next_cursor,
  };
}

/**
 * PUT (every field; omitted optional ones back to their defaults) or PATCH (the given fields) of a
 * draft. A new audience replaces the listed members.
 */
export async function updateBroadcast(
  deps: BroadcastResourceDeps,
  id: string,
  input: BroadcastPatchInput,
  mode: "replace" | "change",
): Promise<BroadcastView> {
  const current = await loadBroadcast(deps, id);
  assertDraft(current);
  await checkBroadcastInput(deps.prisma, input);
  const audience = input.audience ? prepareAudience(input.audience) : null;
  const defaults =
    mode === "replace"
      ? { importance: "normal" as const, data: {}, send_at: null, rate_per_second: null }
      : {};
  const row = await $transaction(
    deps.prisma,
    async (tx) => {
      const changed = await updateDraftBroadcast(
        tx,
        id,
        { ...defaults, ...broadcastFieldsOf(input, audience) },
        deps.now(),
      );
      if (!changed) return null;
      if (audience) {
        await deleteBroadcastMembers(tx, id);
        if (audience.members) await insertBroadcastMembers(tx, id, 0, audience.members);
      }
      return changed;
    },
    WRITE,
  );
  // Started (or gone) between the read and the write.
  if (!row) return assertDraft(await loadBroadcast(deps, id)) as never;
  return serializeBroadcast(deps.prisma, row);
}

function assertDraft(row: BroadcastRow): void {
  if (row.status !== "draft")
    throw new AppError("invalid_state", `only a draft can be changed; this broadcast is ${row.status}`);
}
