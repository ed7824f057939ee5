import type { Router } from "express";
import type { SvcConfig } from "@svc/config";
import { evaluateRules, type EvaluateInput } from "@svc/engine";
import type { RootDatabase } from "@svc/store";
import { principalOf } from "../auth/require-key";

export function evaluateRoutes(
  router: Router,
  deps: { prisma: RootDatabase; config: SvcConfig; now: () => Date },
) {
  router.post("/v1/rules/evaluate", async (req, res) => {
    res.json(await evaluateRules(deps, principalOf(res), req.body as EvaluateInput));
  });
}
