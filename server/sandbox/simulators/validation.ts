/**
 * Validation results of a tenant's datasets, deterministic: the issues the tenant was made with
 * (`validationIssues`: per data type, how many errors and warnings), each naming one of the
 * dataset's records by its id (the records the data reads serve), with one message per data type
 * and kind, so a client can count them by message.
 */
import type { TenantRow } from "../store/store";
import { buildRecord, listKind } from "./records";

type Item = { ruleId: string; itemId: string; message: string; validatorName: string };

/** The entity's name in messages: `invoice`, `bill`, … (the data type when the sandbox serves no list of it). */
function entityOf(dataType: string): string {
  const kind = listKind(dataType);
  return kind ? kind.entity.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase() : dataType;
}

/** The id of the dataset's `index`-th record (wrapping round its records), as the data reads serve it. */
function itemIdOf(params: { tenant: TenantRow; dataType: string; records: number; index: number }): string {
  const kind = listKind(params.dataType);
  if (!kind || params.records === 0) return `${params.dataType}-${String(params.index + 1).padStart(6, "0")}`;
  const record = buildRecord({ kind, tenant: params.tenant, index: params.index % params.records, count: params.records });
  return typeof record.id === "string" ? record.id : String(params.index + 1);
}

/** The errors and warnings of one dataset of `dataType` holding `records` records. */
export function validationIssues(params: {
  tenant: TenantRow;
  dataType: string;
  records: number;
  wanted: { errors: number; warnings: number };
}): { errors: Item[]; warnings: Item[] } {
  const { tenant, dataType, records, wanted } = params;
  const entity = entityOf(dataType);
  const validatorName = `${entity.replace(/(^|\s)\w/g, (c) => c.trim().toUpperCase())}Validator`;
  const errors = Array.from({ length: wanted.errors }, (_, i) => ({
    ruleId: `sandbox-${dataType}-030`,
    itemId: itemIdOf({ tenant, dataType, records, index: i }),
    message: `A ${entity}'s lines summed should be the same as its total amount.`,
    validatorName,
  }));
  const warnings = Array.from({ length: wanted.warnings }, (_, i) => ({
    ruleId: `sandbox-${dataType}-032`,
    itemId: itemIdOf({ tenant, dataType, records, index: wanted.errors + i }),
    message: `A ${entity} refers to a record the sync did not read.`,
    validatorName,
  }));
  return { errors, warnings };
}
