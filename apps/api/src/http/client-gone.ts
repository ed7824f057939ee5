import type { Response } from "express";

/**
 * Aborts when the client closes the connection before the answer was sent: a request held open
 * (a waiting read, the permission hook) stops waiting then (docs/approvals.md "Waiting for the decision").
 */
export function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
