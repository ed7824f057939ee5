import type { Router } from "express";
import { AppError } from "@svc/core";
import { pageQuery } from "../http/page-query";

// HTTP side of the keyed admin resources (categories, templates, rules, agents): one contract,
// mapped once (docs/api.md, "Admin resources").

interface KeyedResource<View> {
  create(key: string, input: unknown, now: Date): Promise<View>;
  replace(key: string, input: unknown, now: Date): Promise<{ created: boolean; view: View }>;
  update(key: string, input: unknown, now: Date): Promise<View>;
  get(key: string): Promise<View>;
  list(request: { limit?: number; cursor?: string }): Promise<unknown>;
  remove(key: string): Promise<void>;
}

function bodyWithoutKey(body: Record<string, unknown>, pathKey: string) {
  const { key, ...rest } = body;
  if (key !== undefined && key !== pathKey) {
    throw new AppError("validation", `body.key: must equal the key in the path ('${pathKey}')`, {
      errors: [{ loc: ["body", "key"], msg: "must equal the key in the path", type: "value_error" }],
    });
  }
  return rest;
}

export function keyedRoutes<View>(
  router: Router,
  base: string,
  resource: () => KeyedResource<View>,
  now: () => Date,
) {
  router.get(base, async (req, res) => {
    res.json(await resource().list(pageQuery(req)));
  });
  router.post(base, async (req, res) => {
    const { key, ...rest } = req.body as Record<string, unknown> & { key: string };
    res.status(201).json(await resource().create(key, rest, now()));
  });
  router.get(`${base}/:key`, async (req, res) => {
    res.json(await resource().get(req.params.key as string));
  });
  router.put(`${base}/:key`, async (req, res) => {
    const key = req.params.key as string;
    const { created, view } = await resource().replace(key, bodyWithoutKey(req.body, key), now());
    res.status(created ? 201 : 200).json(view);
  });
  router.patch(`${base}/:key`, async (req, res) => {
    const key = req.params.key as string;
    res.json(await resource().update(key, bodyWithoutKey(req.body, key), now()));
  });
  router.delete(`${base}/:key`, async (req, res) => {
    await resource().remove(req.params.key as string);
    res.status(204).end();
  });
}
