import { Router, type RequestHandler } from "express";

// Express tries routes one by one, so the last resource registered walks past every route before
// it on each request. By the time routes run, OpenAPI matching has named the operation
// (`req.openapi.expressRoute`), so each route also goes into a small router of its own, found by
// method and path shape. Requests without a matched operation walk the full router as before.

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
type Method = (typeof METHODS)[number];

/** `/v1/agents/:key` and `/v1/agents/{id}` both become `/v1/agents/:` (parameter names differ between the two). */
function pathShape(path: string): string {
  return path.replace(/:[A-Za-z0-9_]+|\{[^}]+\}/g, ":").toLowerCase();
}

export interface OperationRouter {
  /** Register routes on this (Express Router API); `use` mounts stay in the full router only. */
  router: Router;
  /** The middleware to mount: dispatches by operation, else the full router. */
  handle: RequestHandler;
}

export function operationRouter(): OperationRouter {
  const full = Router();
  const byOperation = new Map<string, Router>();
  for (const method of METHODS) {
    const register = full[method].bind(full) as (path: unknown, ...handlers: unknown[]) => Router;
    (full as unknown as Record<Method, unknown>)[method] = (path: unknown, ...handlers: unknown[]) => {
      register(path, ...handlers);
      if (typeof path === "string") {
        const key = `${method.toUpperCase()} ${pathShape(path)}`;
        let own = byOperation.get(key);
        if (!own) byOperation.set(key, (own = Router()));
        (own[method] as (path: string, ...handlers: unknown[]) => Router)(path, ...handlers);
      }
      return full;
    };
  }
  const shapes = new Map<string, string>(); // expressRoute -> shape, computed once per route
  return {
    router: full,
    handle(req, res, next) {
      const route = (req as { openapi?: { expressRoute?: string } }).openapi?.expressRoute;
      if (route !== undefined) {
        let shape = shapes.get(route);
        if (shape === undefined) shapes.set(route, (shape = pathShape(route)));
        const own = byOperation.get(`${req.method} ${shape}`);
        if (own) return own(req, res, next);
      }
      return full(req, res, next);
    },
  };
}
