/**
 * The header row of a token file: which column is which, which are missing or unknown, and
 * whether the columns belong to another platform altogether.
 *
 * Header matching ignores case, spaces, `_` and `-`, so `Company name`, `company_name` and
 * `companyName` are the same column, as are `access_token` and `accessToken`. Accepted headers:
 * - companyName: `companyName`, `company`, `name` (and their spellings above)
 * - each credential field of the platform: its name (server/platforms), e.g. `realmId`
 * - externalRef (optional): `externalRef`, `externalReference`, `reference`, `ref`
 * - records (optional): `records`, `recordCount`, `recordsHint`
 * - the old app's record count per data type (optional, each its own column): `count_<dataType>`
 *   for the data types whose records Ferry counts back and the platform syncs — `count_invoices`,
 *   `count_customers`, `count_suppliers`, `count_bills`, `count_purchaseOrders`,
 *   `count_chartOfAccounts` (or `count_accounts`); Shopify `count_orders`, `count_products`,
 *   `count_customers` (or `count_commerce-orders` …). `invoices_count`, `invoiceCount` and the
 *   singular are the same column.
 */
import { MANAGED_PLATFORMS, type CredentialField, type ManagedPlatform } from "@/server/platforms";
import { cut } from "./problems";
import { type IntakeProblem } from "@/core/intake/problems";

export type ColumnRole =
  | { role: "companyName" }
  | { role: "externalRef" }
  | { role: "records" }
  | { role: "oldCount"; dataType: CountedDataType }
  | { role: "credential"; field: CredentialField };

/**
 * The data types whose record counts Ferry reads back (the service client's DATA_LISTS), with the
 * names their count column may use besides the data type itself (normalised: lower case, no
 * spaces, `_` or `-`). The canonical column is `count_<dataType>`; the short names read better
 * in a commerce file (`count_orders`).
 */
const COUNTED_DATA_TYPES = {
  chartOfAccounts: ["accounts", "account"],
  invoices: ["invoice"],
  customers: ["customer"],
  suppliers: ["supplier", "vendors", "vendor"],
  bills: ["bill"],
  purchaseOrders: ["purchaseorder"],
  "commerce-orders": ["orders", "order"],
  "commerce-products": ["products", "product"],
  "commerce-customers": ["customers", "customer"],
} as const satisfies Record<string, readonly string[]>;
export type CountedDataType = keyof typeof COUNTED_DATA_TYPES;

/** The canonical header of a data type's old count column: `count_invoices`. */
export const countColumn = (dataType: string) => `count_${dataType}`;

/** The data types of the platform a token file may give the old app's counts for, in a fixed order. */
export function countedDataTypes(platform: Pick<ManagedPlatform, "supportedDataTypes">): CountedDataType[] {
  const supported = new Set<string>(platform.supportedDataTypes);
  return (Object.keys(COUNTED_DATA_TYPES) as CountedDataType[]).filter((t) => supported.has(t));
}

/** The old count column a normalised header names for this platform, if any. */
function countRoleFor(platform: ManagedPlatform, key: string): ColumnRole | null {
  const match = /^count(.+)$/.exec(key) ?? /^(.+)count$/.exec(key) ?? /^old(.+)count$/.exec(key);
  const name = match?.[1];
  if (!name) return null;
  for (const dataType of countedDataTypes(platform)) {
    const names: readonly string[] = [normaliseHeader(dataType), ...COUNTED_DATA_TYPES[dataType]];
    if (names.includes(name)) return { role: "oldCount", dataType };
  }
  return null;
}

/** Where each known column is, by position (0-based). */
export type ColumnMap = {
  /** Header text as written (trimmed), by position. */
  headers: string[];
  /** The role of each position; null for a blank or unknown header. */
  roles: (ColumnRole | null)[];
  companyName: number | null;
  externalRef: number | null;
  records: number | null;
  /** The old app's count columns present, by data type, in file order. */
  oldCounts: { dataType: CountedDataType; position: number }[];
  /** Every credential field of the platform with its position, or null when the column is absent. */
  credentials: { field: CredentialField; position: number | null }[];
};

export type HeaderCheck = {
  columns: ColumnMap;
  /** Header problems (without severity; the caller's list adds it), with the column's position when it has one. */
  problems: (Omit<IntakeProblem, "severity"> & { position?: number })[];
  /**
   * False when the rows cannot be read as this platform's at all (no header row, another
   * platform's file). Missing, unknown or repeated columns still let the rows be checked, so one
   * upload shows every problem.
   */
  usable: boolean;
};

const ALIASES: Record<"companyName" | "externalRef" | "records", readonly string[]> = {
  companyName: ["companyname", "company", "name"],
  externalRef: ["externalref", "externalreference", "reference", "ref"],
  records: ["records", "recordcount", "recordshint"],
};

/** A header as compared: lower case, without spaces, `_` or `-`. */
export function normaliseHeader(header: string): string {
  return header.trim().toLowerCase().replace(/[\s_-]+/g, "");
}

function roleFor(platform: ManagedPlatform, key: string): ColumnRole | null {
  if (ALIASES.companyName.includes(key)) return { role: "companyName" };
  if (ALIASES.externalRef.includes(key)) return { role: "externalRef" };
  if (ALIASES.records.includes(key)) return { role: "records" };
  const field = platform.credentialFields.find((f) => normaliseHeader(f.name) === key);
  return field ? { role: "credential", field } : countRoleFor(platform, key);
}

function roleName(role: ColumnRole): string {
  if (role.role === "oldCount") return countColumn(role.dataType);
  return role.role === "credential" ? role.field.name : role.role;
}

/** The columns a platform's token file has, in words: required first, then optional. */
export function describeColumns(platform: ManagedPlatform): string {
  const required = ["companyName", ...platform.credentialFields.filter((f) => f.required).map((f) => f.name)];
  const optional = [...platform.credentialFields.filter((f) => !f.required).map((f) => f.name), "externalRef", "records", "the old app's counts (count_<dataType>)"];
  return `${required.join(", ")}, and optionally ${optional.join(", ")}`;
}

/** Header text fit to quote back: a header is short; anything longer is cut (it may not be a header). */
function quoted(header: string): string {
  return header.length > 40 ? `“${header.slice(0, 37)}…”` : `“${header}”`;
}

/**
 * The other platform whose token file these headers are, when the unknown headers are exactly
 * some other platform's own fields and its required fields are all there; otherwise null.
 */
function otherPlatformOf(platform: ManagedPlatform, keys: readonly string[], unknown: readonly string[]): ManagedPlatform | null {
  if (!unknown.length) {
    // Only columns this platform lacks can point elsewhere; without any, it is just a missing column.
    return null;
  }
  let best: { platform: ManagedPlatform; present: number } | null = null;
  for (const other of MANAGED_PLATFORMS) {
    if (other.key === platform.key) continue;
    const own = new Set(other.credentialFields.map((f) => normaliseHeader(f.name)));
    if (!unknown.every((k) => own.has(k))) continue;
    const required = other.credentialFields.filter((f) => f.required).map((f) => normaliseHeader(f.name));
    if (!required.every((k) => keys.includes(k))) continue;
    const present = [...own].filter((k) => keys.includes(k)).length;
    if (!best || present > best.present) best = { platform: other, present };
  }
  return best?.platform ?? null;
}

/** Reads the header row against the engagement's platform. */
export function checkHeader(platform: ManagedPlatform, headerCells: readonly string[]): HeaderCheck {
  const headers = headerCells.map((h) => h.trim());
  const keys = headers.map(normaliseHeader);
  const roles = keys.map((k) => (k ? roleFor(platform, k) : null));
  const columns: ColumnMap = {
    headers,
    roles,
    companyName: null,
    externalRef: null,
    records: null,
    oldCounts: [],
    credentials: platform.credentialFields.map((field) => ({ field, position: null })),
  };
  const problems: HeaderCheck["problems"] = [];
  const allFieldKeys = new Set(MANAGED_PLATFORMS.flatMap((p) => p.credentialFields.map((f) => normaliseHeader(f.name))));

  if (!roles.some(Boolean) && !keys.some((k) => allFieldKeys.has(k))) {
    problems.push({
      kind: "missing_header_row",
      message: `The first row must name the columns (${describeColumns(platform)}), but none of its cells is a column name. Add the header row from the ${platform.name} template.`,
    });
    return { columns, problems, usable: false };
  }

  const unknownKeys = keys.filter((k, i) => k && !roles[i]);
  const other = otherPlatformOf(platform, keys, unknownKeys);
  if (other) {
    const telling = headers.filter((_, i) => keys[i] && !roles[i]);
    problems.push({
      kind: "wrong_platform",
      message: `These columns are a ${other.name} token file (${telling.join(", ")}), but this engagement is for ${platform.name}, whose token file has ${describeColumns(platform)}. Upload the ${platform.name} tokens, or ask support if the engagement's platform is wrong.`,
    });
    return { columns, problems, usable: false };
  }

  const seen = new Map<string, number>();
  roles.forEach((role, position) => {
    const header = headers[position]!;
    if (!role) {
      if (!header) return;
      problems.push({
        kind: "unknown_column",
        position,
        column: cut(header, 40),
        message: `${quoted(header)} is not a column of a ${platform.name} token file. Its columns are ${describeColumns(platform)}; remove or rename this one.`,
      });
      return;
    }
    const name = roleName(role);
    const first = seen.get(name);
    if (first !== undefined) {
      problems.push({
        kind: "duplicate_column",
        position,
        column: name,
        message: `${quoted(header)} is ${name} again (already ${quoted(headers[first]!)}); keep one ${name} column.`,
      });
      return;
    }
    seen.set(name, position);
    switch (role.role) {
      case "companyName":
        columns.companyName = position;
        break;
      case "externalRef":
        columns.externalRef = position;
        break;
      case "records":
        columns.records = position;
        break;
      case "oldCount":
        columns.oldCounts.push({ dataType: role.dataType, position });
        break;
      case "credential": {
        const slot = columns.credentials.find((c) => c.field.name === role.field.name);
        if (slot) slot.position = position;
        break;
      }
      default: {
        const never: never = role;
        return never;
      }
    }
  });

  const required = [
    { name: "companyName", present: columns.companyName !== null },
    ...columns.credentials.filter((c) => c.field.required).map((c) => ({ name: c.field.name, present: c.position !== null })),
  ];
  for (const column of required.filter((c) => !c.present)) {
    problems.push({
      kind: "missing_column",
      column: column.name,
      message: `The ${column.name} column is missing; a ${platform.name} token file has ${describeColumns(platform)}.`,
    });
  }

  const expiresAt = columns.credentials.find((c) => c.field.name === "expiresAt");
  if (expiresAt && expiresAt.position === null && platform.accessTokenLifetimeSeconds !== null) {
    problems.push({
      kind: "expires_at_missing",
      column: "expiresAt",
      message: `There is no expiresAt column. ${platform.name} access tokens expire after ${platform.accessTokenLifetimeSeconds / 3600} h, and without the expiry the service cannot know when to refresh them; add each token's expiry if you have it.`,
    });
  }

  return { columns, problems, usable: true };
}
