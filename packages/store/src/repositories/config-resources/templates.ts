import type { TemplateRow } from "../../rows";
import { json } from "../json-columns";
import { keyedRows } from "./keyed-rows";

export interface TemplateFields {
  default_locale?: string;
  locales?: Record<string, unknown>;
  ai_attributes?: string[];
}

export const templateRows = keyedRows<TemplateRow, TemplateFields>({
  table: (db) => db.template,
  columns: (fields) => ({ ...fields, locales: json(fields.locales) }),
});
