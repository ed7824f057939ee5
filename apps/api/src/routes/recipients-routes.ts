import type { Router } from "express";
import type { PrismaClient } from "@svc/store";

/** Recipients, addresses and preferences (SPEC 2.9); filled in with their OpenAPI paths. */
export function recipientsRoutes(_router: Router, _deps: { prisma: PrismaClient; now: () => Date }): void {}
