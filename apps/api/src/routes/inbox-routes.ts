import type { Request, Router } from "express";
import { AppError, INBOX_ITEM_ACTIONS, parseStreamPosition, type InboxFilter } from "@svc/core";
import {
  actOnInboxItem,
  inboxCounts,
  issueInboxToken,
  listInbox,
  markAllInbox,
  type InboxStreams,
} from "@svc/engine";
import { principalOf } from "../auth/require-key";
import { inboxPersonOf } from "../auth/require-inbox-token";
import { pageQuery } from "../http/page-query";
import { serveInboxStream } from "../http/inbox-stream";
import type { RouteDeps } from "./route-deps";

/** The in-app inbox (docs/inbox.md): tokens for people, the feed API and its stream. */
export function inboxRoutes(router: Router, deps: RouteDeps & { inboxStreams: InboxStreams }): void {
  router.post("/v1/recipients/:external_id/inbox-token", async (req, res) => {
    res.json(await issueInboxToken(deps, principalOf(res), req.params.external_id as string));
  });
  router.get("/v1/inbox/items", async (req, res) => {
    const filter = req.query.filter as InboxFilter | undefined;
    res.json(await listInbox(deps, inboxPersonOf(res), { ...pageQuery(req), filter }));
  });
  router.get("/v1/inbox/counts", async (_req, res) => {
    res.json(await inboxCounts(deps, inboxPersonOf(res)));
  });
  for (const action of INBOX_ITEM_ACTIONS) {
    router.post(`/v1/inbox/items/:id/${action}`, async (req, res) => {
      res.json(await actOnInboxItem(deps, inboxPersonOf(res), req.params.id as string, action));
    });
  }
  router.post("/v1/inbox/seen-all", async (_req, res) => {
    res.json(await markAllInbox(deps, inboxPersonOf(res), "seen"));
  });
  router.post("/v1/inbox/read-all", async (_req, res) => {
    res.json(await markAllInbox(deps, inboxPersonOf(res), "read"));
  });
  router.get("/v1/inbox/stream", async (req, res) => {
    await serveInboxStream(deps.inboxStreams, inboxPersonOf(res), lastEventId(req), req, res);
  });
}

function lastEventId(req: Request): bigint | null {
  const position = parseStreamPosition(req.headers["last-event-id"] as string | undefined);
  if (position !== "invalid") return position;
  const msg = "not an event id this stream sent";
  throw new AppError("validation", `Last-Event-ID: ${msg}`, {
    errors: [{ loc: ["header", "Last-Event-ID"], msg, type: "value_error" }],
  });
}
