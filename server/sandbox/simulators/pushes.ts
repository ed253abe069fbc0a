/**
 * Push (write) operations. The service answers 200 with a Pending operation; the simulated
 * platform takes the tenant's write delay to process it, then the operation resolves to Success,
 * Failed (the platform's validation, or rejected credentials) or TimedOut (the delay is longer
 * than `timeoutInMinutes`). A platform that processes asynchronously answers the write with 202;
 * the operation records that code beside its own.
 */
import { randomUUID } from "node:crypto";
import type { DataType, ManagedPlatform } from "../../platforms";
import type { ValidationItem } from "../http/errors";
import { isPlainObject } from "../http/io";
import type { PushRow, PushValidation } from "../store/store";
import type { PlatformRejection } from "./tokens";

type Rule = (body: Record<string, unknown>) => ValidationItem[];

type Writable = { dataType: DataType; validatorName: string; rule: Rule };

function nonEmptyString(value: unknown): boolean {
  return typeof value === "string" && value.trim() !== "";
}

function required(field: string, validatorName: string, label = field): Rule {
  return (body) =>
    nonEmptyString(body[field]) ? [] : [{ itemId: label, message: `${label} is required.`, validatorName }];
}

function requiredRef(field: string, validatorName: string): Rule {
  return (body) => {
    const ref = body[field];
    return isPlainObject(ref) && nonEmptyString(ref.id)
      ? []
      : [{ itemId: `${field}.id`, message: `${field}.id is required: the record it refers to.`, validatorName }];
  };
}

function nonEmptyArray(field: string, validatorName: string, min = 1): Rule {
  return (body) => {
    const value = body[field];
    return Array.isArray(value) && value.length >= min
      ? []
      : [{ itemId: field, message: `${field} must hold at least ${min} line(s).`, validatorName }];
  };
}

function all(...rules: Rule[]): Rule {
  return (body) => rules.flatMap((rule) => rule(body));
}

const nominalCode: Rule = (body) => {
  const code = body.nominalCode;
  if (code === undefined) return [];
  if (typeof code === "string" && code.length <= 10) return [];
  return [
    {
      itemId: "NominalCode",
      message: "Failed to push to Account as NominalCode must not be longer than 10 characters long.",
      validatorName: "Account",
    },
  ];
};

/** Write endpoints (`push/{segment}`) and the platform's checks of each record. */
export const WRITABLE: Readonly<Record<string, Writable>> = {
  accounts: { dataType: "chartOfAccounts", validatorName: "Account", rule: all(required("name", "Account"), nominalCode) },
  invoices: {
    dataType: "invoices",
    validatorName: "Invoice",
    rule: all(requiredRef("customerRef", "Invoice"), nonEmptyArray("lineItems", "Invoice")),
  },
  customers: { dataType: "customers", validatorName: "Customer", rule: required("customerName", "Customer") },
  suppliers: { dataType: "suppliers", validatorName: "Supplier", rule: required("supplierName", "Supplier") },
  bills: {
    dataType: "bills",
    validatorName: "Bill",
    rule: all(requiredRef("supplierRef", "Bill"), nonEmptyArray("lineItems", "Bill")),
  },
  payments: { dataType: "payments", validatorName: "Payment", rule: requiredRef("customerRef", "Payment") },
  creditNotes: { dataType: "creditNotes", validatorName: "CreditNote", rule: requiredRef("customerRef", "CreditNote") },
  journalEntries: {
    dataType: "journalEntries",
    validatorName: "JournalEntry",
    rule: nonEmptyArray("journalLines", "JournalEntry", 2),
  },
  purchaseOrders: {
    dataType: "purchaseOrders",
    validatorName: "PurchaseOrder",
    rule: requiredRef("supplierRef", "PurchaseOrder"),
  },
  items: { dataType: "items", validatorName: "Item", rule: required("name", "Item") },
};

/** The write endpoint `push/{segment}`, if the service has one (own keys only, not Object.prototype's). */
export function writableFor(segment: string): Writable | undefined {
  return Object.hasOwn(WRITABLE, segment) ? WRITABLE[segment] : undefined;
}

/** The platform's validation problems with a record to write. */
export function validateRecord(writable: Writable, body: Record<string, unknown>): ValidationItem[] {
  return writable.rule(body);
}

/**
 * Plans a push operation: its outcome, the time it resolves and the codes it records.
 * `problems` are the platform's validation findings; `rejection` set when the service's tokens fail.
 */
export function planPush(params: {
  companyId: string;
  connectionId: string;
  platform: ManagedPlatform;
  writable: Writable;
  problems: readonly ValidationItem[];
  rejection: PlatformRejection | null;
  delayMs: number;
  timeoutMinutes: number | null;
  now: number;
}): Omit<PushRow, "settled"> {
  const { platform, writable, problems, rejection, delayMs, now } = params;
  const base = {
    key: randomUUID(),
    companyId: params.companyId,
    connectionId: params.connectionId,
    dataType: writable.dataType,
    requestedAt: now,
    timeoutMinutes: params.timeoutMinutes,
  };
  const timeoutMs = params.timeoutMinutes === null ? null : params.timeoutMinutes * 60_000;
  if (timeoutMs !== null && delayMs > timeoutMs) {
    // The platform is still working when the service stops waiting; TimedOut changes the status
    // only (the write may still land), so the service's code stays 200.
    return {
      ...base,
      resolvesAt: now + timeoutMs,
      outcome: "TimedOut",
      statusCode: 200,
      platformStatusCode: 202,
      errorMessage: `${platform.name} did not finish the write within ${params.timeoutMinutes} minute(s).`,
      validation: null,
      recordId: null,
    };
  }
  const accepted = delayMs > 0;
  // Even a write the platform answers at once resolves after the creation response, which is
  // therefore always Pending.
  const resolvesAt = now + Math.max(1, delayMs);
  if (rejection) {
    return {
      ...base,
      resolvesAt,
      outcome: "Failed",
      statusCode: 401,
      platformStatusCode: accepted ? 202 : 401,
      errorMessage: rejection.errorMessage,
      validation: null,
      recordId: null,
    };
  }
  if (problems.length) {
    const validation: PushValidation = {
      errors: problems.map((p) => ({
        itemId: p.itemId ?? writable.validatorName,
        message: p.message,
        validatorName: p.validatorName ?? writable.validatorName,
      })),
      warnings: [],
    };
    return {
      ...base,
      resolvesAt,
      outcome: "Failed",
      statusCode: 400,
      platformStatusCode: accepted ? 202 : 400,
      errorMessage: `An error occurred in a downstream service. Message: Push failed for ${writable.validatorName}: see validation for more information`,
      validation,
      recordId: null,
    };
  }
  return {
    ...base,
    resolvesAt,
    outcome: "Success",
    statusCode: 200,
    platformStatusCode: accepted ? 202 : 201,
    errorMessage: null,
    validation: null,
    recordId: `${writable.validatorName.toUpperCase()}-${randomUUID().slice(0, 8)}`,
  };
}

export type PushState = { status: "Pending" | PushRow["outcome"]; statusCode: number; completedAt: number | null };

/** The operation's status at sandbox time `now`: Pending (code 200) until it resolves. */
export function pushState(row: PushRow, now: number): PushState {
  if (now < row.resolvesAt) return { status: "Pending", statusCode: 200, completedAt: null };
  return { status: row.outcome, statusCode: row.statusCode, completedAt: row.resolvesAt };
}
