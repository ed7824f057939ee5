import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";

// Express charges every `app.use` layer a router step (path match, params, prefix trim, promise
// check) on every request. Middlewares that always run in sequence on every path go into one layer
// instead, with the router's own rules: an error skips to the next error handler (four arguments)
// of the series, else leaves it; a thrown error or a rejected promise counts as next(err).

export type SeriesStep = RequestHandler | ErrorRequestHandler;

// The router's arity rules: only four-argument handlers see errors; more than three never runs
// without one.
const takesError = (step: SeriesStep, err: unknown): boolean => (err ? step.length === 4 : step.length <= 3);

const isPromise = (value: unknown): value is Promise<unknown> =>
  value !== null && typeof value === "object" && typeof (value as { then?: unknown }).then === "function";

export function series(...steps: SeriesStep[]): RequestHandler {
  if (steps.length === 1 && steps[0]!.length <= 3) return steps[0] as RequestHandler;
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next = (signal?: unknown): void => {
      // As in the router: 'route' outside a route is no error, 'router' leaves the whole router.
      if (signal === "router") return done(signal);
      const err = signal === "route" ? undefined : signal;
      while (index < steps.length) {
        const step = steps[index++]!;
        if (!takesError(step, err)) continue;
        try {
          const result = err
            ? (step as ErrorRequestHandler)(err, req, res, next)
            : (step as RequestHandler)(req, res, next);
          if (isPromise(result)) {
            result.then(undefined, (error: unknown) => next(error || new Error("Rejected promise")));
          }
        } catch (error) {
          next(error);
        }
        return;
      }
      done(err);
    };
    next();
  };
}
