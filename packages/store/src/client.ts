import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";

export interface CreatePrismaOptions {
  databaseUrl: string;
  /** Most connections this client's pool opens (pg's default is 10). */
  poolMax?: number;
}

/** A PrismaClient over `pg` through the driver adapter: no native engine involved. */
export function createPrisma(options: CreatePrismaOptions): PrismaClient {
  const adapter = new PrismaPg({ connectionString: options.databaseUrl, max: options.poolMax });
  return new PrismaClient({ adapter });
}
