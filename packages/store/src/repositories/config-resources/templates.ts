import type { TemplateRow } from "../../rows";
import { keyedRows } from "./keyed-rows";
import { prismaOf } from "../../transaction";

export interface TemplateFields {
  default_locale?: string;
  locales?: Record<string, unknown>;
  ai_attributes?: string[];
}

export const templateRows = keyedRows<TemplateRow, TemplateFields>({
  table: (db) => prismaOf(db).template,
  jsonColumns: { notNull: ["locales"] },
});
