import type { CategoryRow } from "../../rows";
import { keyedRows, type StoredCapColumn } from "./keyed-rows";
import { prismaOf, type Database } from "../../transaction";

export interface CategoryFields {
  description?: string;
  frequency_caps?: StoredCapColumn[];
  respect_quiet_hours?: boolean;
  allow_unsubscribe?: boolean;
  marketing?: boolean;
  /** `pause` in seconds; null: no fatigue rule. */
  fatigue?: { after: number; pause: number } | null;
}

export const categoryRows = keyedRows<CategoryRow, CategoryFields>({
  table: (db) => prismaOf(db).category,
  jsonColumns: { nullable: ["fatigue"], notNull: ["frequency_caps"] },
});

/** Those of `keys` that name a category. */
export async function findCategoryKeys(db: Database, keys: string[]): Promise<string[]> {
  const found = await prismaOf(db).category.findMany({ where: { key: { in: keys } }, select: { key: true } });
  return found.map((c) => c.key);
}

/** The categories named by `keys` (unknown keys are left out). */
export async function findCategories(db: Database, keys: string[]): Promise<CategoryRow[]> {
  return prismaOf(db).category.findMany({ where: { key: { in: keys } } });
}

/** Categories a person may leave (`allow_unsubscribe`), by key. */
export async function listCategoriesOpenToUnsubscribe(db: Database): Promise<CategoryRow[]> {
  return prismaOf(db).category.findMany({ where: { allow_unsubscribe: true }, orderBy: { key: "asc" } });
}
