import type { Express } from "express";
import type { Env, SvcConfig } from "@svc/config";
import {
  agentsResource,
  categoriesResource,
  checkTemplateString,
  createApprovalWaiters,
  createInboxStreams,
  providerWebhookAuth,
  rulesResource,
  templatesResource,
} from "@svc/engine";
import type { Logger } from "@svc/log";
import { redisReadiness, redisTopologyOf, type NoticeBus, type Queues, type RedisClient } from "@svc/queue";
import { pendingMigrations, pingDatabase, type RootDatabase } from "@svc/store";
import { createApp } from "./app";
import { apiKeyCacheWithNotices } from "./auth/api-key-notices";
import { rateLimit } from "./auth/rate-limit";
import { requireKey } from "./auth/require-key";
import { requireInboxToken } from "./auth/require-inbox-token";
import { mountInboxCors } from "./http/inbox-cors";
import { INBOX_ELEMENT_PATH, inboxElement } from "./http/inbox-element";
import { mountQueueDashboard } from "./http/queue-dashboard";
import { mountMetrics } from "./http/metrics-route";
import { PREFERENCE_PAGES_PATH, preferencePages } from "./hosted/preferences-router";
import { REVIEW_PAGES_PATH, reviewPages } from "./hosted/review-router";
import { recipientRightsRoutes } from "./routes/recipient-rights-routes";
import { apiKeysRoutes } from "./routes/api-keys-routes";
import { keyedRoutes } from "./routes/keyed-routes";
import { messagesRoutes } from "./routes/messages-routes";
import { engagementRoutes } from "./routes/engagement-routes";
import { recipientsRoutes } from "./routes/recipients-routes";
import { eventsRoutes } from "./routes/events-routes";
import { evaluateRoutes } from "./routes/evaluate-routes";
import { templatePreviewRoutes } from "./routes/templates-routes";
import { digestsRoutes } from "./routes/digests-routes";
import { approvalsRoutes } from "./routes/approvals-routes";
import { sessionGrantsRoutes } from "./routes/session-grants-routes";
import { callbacksRoutes } from "./routes/callbacks-routes";
import { webhooksRoutes } from "./routes/webhooks-routes";
import { inboundRoutes, providerWebhookSignature } from "./routes/inbound-routes";
import { hooksRoutes } from "./routes/hooks-routes";
import { broadcastsRoutes } from "./routes/broadcasts-routes";
import { inboxRoutes } from "./routes/inbox-routes";
import { MCP_PATH, mcpRouter } from "./mcp/mcp-router";

export interface ApiServices {
  config: SvcConfig;
  logger: Logger;
  prisma: RootDatabase;
  /** The API's own connection: rate limits and the readiness probe. */
  redis: RedisClient;
  queues: Queues;
  /** Notices between processes (key changes, inbox streams, decided approvals); the caller closes it. */
  notices: NoticeBus;
  migrationsDir: string;
  /** Where provider credentials named by `*_env` settings are read (the text webhook's auth token). */
  env?: Env;
  now?: () => Date;
  validateResponses?: boolean;
}

/**
 * Wires the use cases into the HTTP skeleton: the API's composition root, without `listen`. Call
 * `shutdownApi(app)` before closing the server: open inbox streams would keep it waiting.
 */
export function buildApi(services: ApiServices): Express {
  const { config, logger, prisma, redis, queues, notices } = services;
  const now = services.now ?? (() => new Date());
  const apiKeyCache = apiKeyCacheWithNotices({ prisma, notices });
  // Waiting reads of approval requests listen for the outbox's notices (docs/approvals.md).
  const approvalWaiters = createApprovalWaiters({
    notices,
    maxWaiters: config.approvals.max_waiters,
    maxPerKey: config.approvals.max_waiters_per_key,
    now,
  });
  const deps = { prisma, now, config, logger, queues, apiKeyCache, approvalWaiters };
  const limiter = rateLimit(redis, config.redis.prefix, config.api.rate_limit, logger);
  // The inbox streams this process holds, fed by notices from any process (docs/inbox.md).
  const inboxStreams = createInboxStreams({ prisma, config, notices, logger, now });
  const app = createApp({
    logger,
    config,
    validateResponses: services.validateResponses,
    readinessChecks: {
      postgres: async () => pingDatabase(prisma),
      redis: async () => redisReadiness(redis, redisTopologyOf(config.redis).mode),
      migrations: async () => {
        const pending = await pendingMigrations({
          migrationsDir: services.migrationsDir,
          databaseUrl: config.database.url,
        });
        if (pending.length > 0) throw new Error(`pending migrations: ${pending.join(", ")}`);
      },
    },
    beforeValidation: [
      requireKey(deps),
      requireInboxToken(deps),
      providerWebhookSignature(providerWebhookAuth(config, services.env ?? {})),
      limiter,
    ],
    mountUnvalidated: (app) => {
      mountInboxCors(app, config.inbox.allowed_origins);
      mountQueueDashboard(app, queues, deps);
      mountMetrics(app, queues, deps);
      app.use(PREFERENCE_PAGES_PATH, preferencePages(deps));
      app.use(REVIEW_PAGES_PATH, reviewPages(deps));
      app.use(MCP_PATH, mcpRouter({ ...deps, rateLimit: limiter }));
    },
    routes(router) {
      apiKeysRoutes(router, deps);
      keyedRoutes(router, "/v1/agents", () => agentsResource(deps), now);
      keyedRoutes(router, "/v1/categories", () => categoriesResource(deps), now);
      keyedRoutes(router, "/v1/templates", () => templatesResource(deps), now);
      templatePreviewRoutes(router, deps);
      keyedRoutes(
        router,
        "/v1/rules",
        () => rulesResource(deps, { aiEnabled: config.ai.enabled, checkTemplateString }),
        now,
      );
      recipientsRoutes(router, deps);
      approvalsRoutes(router, deps);
      sessionGrantsRoutes(router, deps);
      recipientRightsRoutes(router, deps);
      eventsRoutes(router, deps);
      evaluateRoutes(router, deps);
      messagesRoutes(router, deps);
      engagementRoutes(router, deps);
      digestsRoutes(router, deps);
      callbacksRoutes(router, deps);
      webhooksRoutes(router, deps);
      inboundRoutes(router, deps);
      hooksRoutes(router, deps);
      broadcastsRoutes(router, deps);
      inboxRoutes(router, { ...deps, inboxStreams });
      router.get(INBOX_ELEMENT_PATH, inboxElement());
    },
  });
  app.locals[SHUTDOWN] = () => inboxStreams.close();
  return app;
}

const SHUTDOWN = "svcShutdown";

/** Ends what holds connections open (inbox streams), so the server can close. */
export async function shutdownApi(app: Express): Promise<void> {
  const shutdown = app.locals[SHUTDOWN] as (() => Promise<void>) | undefined;
  await shutdown?.();
}
