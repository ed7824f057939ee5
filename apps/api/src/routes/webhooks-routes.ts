import type { Router } from "express";
import {
  createWebhookEndpoint,
  deleteWebhookEndpointById,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  retryWebhookDelivery,
  rotateWebhookEndpointSecret,
  testWebhookEndpoint,
  updateWebhookEndpointById,
  type ListWebhookDeliveriesQuery,
  type WebhookDeliveriesDeps,
  type WebhookEndpointDeps,
  type WebhookEndpointInput,
} from "@svc/engine";
import { pageQuery } from "../http/page-query";

// Status webhooks (docs/webhooks.md): endpoints, their deliveries, a test event. Admin keys only,
// as the OpenAPI document says.
export function webhooksRoutes(router: Router, deps: WebhookEndpointDeps & WebhookDeliveriesDeps): void {
  router.post("/v1/webhooks", async (req, res) => {
    res.status(201).json(await createWebhookEndpoint(deps, req.body as WebhookEndpointInput));
  });
  router.get("/v1/webhooks", async (req, res) => {
    res.json(await listWebhookEndpoints(deps, pageQuery(req)));
  });
  router.get("/v1/webhooks/:id", async (req, res) => {
    res.json(await getWebhookEndpoint(deps, req.params.id as string));
  });
  router.patch("/v1/webhooks/:id", async (req, res) => {
    res.json(
      await updateWebhookEndpointById(
        deps,
        req.params.id as string,
        req.body as Partial<WebhookEndpointInput>,
      ),
    );
  });
  router.delete("/v1/webhooks/:id", async (req, res) => {
    await deleteWebhookEndpointById(deps, req.params.id as string);
    res.status(204).end();
  });
  router.post("/v1/webhooks/:id/rotate-secret", async (req, res) => {
    res.json(await rotateWebhookEndpointSecret(deps, req.params.id as string));
  });
  router.post("/v1/webhooks/:id/test", async (req, res) => {
    res.status(202).json(await testWebhookEndpoint(deps, req.params.id as string));
  });
  router.get("/v1/webhooks/:id/deliveries", async (req, res) => {
    res.json(
      await listWebhookDeliveries(
        deps,
        req.params.id as string,
        req.query as unknown as ListWebhookDeliveriesQuery,
      ),
    );
  });
  router.post("/v1/webhooks/:id/deliveries/:deliveryId/retry", async (req, res) => {
    res.json(await retryWebhookDelivery(deps, req.params.id as string, req.params.deliveryId as string));
  });
}
