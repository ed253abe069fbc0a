/**
 * The service's data types and pull (sync) statuses, exactly as the service spells them.
 * Shared by the sandbox (which serves them) and the service client (which parses them).
 */

/** Accounting data types, in the service's spelling. */
export const ACCOUNTING_DATA_TYPES = [
  "accountTransactions",
  "balanceSheet",
  "bankAccounts",
  "bankTransactions",
  "billCreditNotes",
  "billPayments",
  "bills",
  "cashFlowStatement",
  "chartOfAccounts",
  "company",
  "creditNotes",
  "customers",
  "directCosts",
  "directIncomes",
  "invoices",
  "itemReceipts",
  "items",
  "journalEntries",
  "journals",
  "paymentMethods",
  "payments",
  "profitAndLoss",
  "purchaseOrders",
  "salesOrders",
  "suppliers",
  "taxRates",
  "trackingCategories",
  "transfers",
] as const;

/** Banking data types (no managed platform serves these; listed so the enum is whole). */
export const BANKING_DATA_TYPES = [
  "banking-accountBalances",
  "banking-accounts",
  "banking-transactionCategories",
  "banking-transactions",
] as const;

/** Commerce data types, in the service's spelling. */
export const COMMERCE_DATA_TYPES = [
  "commerce-companyInfo",
  "commerce-customers",
  "commerce-disputes",
  "commerce-locations",
  "commerce-orders",
  "commerce-paymentMethods",
  "commerce-payments",
  "commerce-productCategories",
  "commerce-products",
  "commerce-taxComponents",
  "commerce-transactions",
] as const;

/** Every data type the service knows (the DataType enum, 43 values). */
export const DATA_TYPES = [...ACCOUNTING_DATA_TYPES, ...BANKING_DATA_TYPES, ...COMMERCE_DATA_TYPES] as const;

export type DataType = (typeof DATA_TYPES)[number];

const dataTypeSet: ReadonlySet<string> = new Set(DATA_TYPES);

/** True when `value` is one of the service's data types (case-sensitive, as the service is). */
export function isDataType(value: string): value is DataType {
  return dataTypeSet.has(value);
}

/** Pull-operation / data-status states, exact casing (the SDK's enums are strict). */
export const PULL_STATUSES = [
  "Initial",
  "Queued",
  "Fetching",
  "MapQueued",
  "Mapping",
  "Complete",
  "FetchError",
  "MapError",
  "InternalError",
  "ProcessingQueued",
  "Processing",
  "ProcessingError",
  "ValidationQueued",
  "Validating",
  "ValidationError",
  "AuthError",
  "Cancelled",
  "NotSupported",
  "RateLimitError",
  "PermissionsError",
  "PrerequisiteNotMet",
] as const;

export type PullStatus = (typeof PULL_STATUSES)[number];

/** Statuses after which a pull operation will not change again. */
export const TERMINAL_PULL_STATUSES: ReadonlySet<PullStatus> = new Set<PullStatus>([
  "Complete",
  "FetchError",
  "MapError",
  "InternalError",
  "ProcessingError",
  "ValidationError",
  "AuthError",
  "Cancelled",
  "NotSupported",
  "RateLimitError",
  "PermissionsError",
  "PrerequisiteNotMet",
]);

/** Connection statuses, exact casing. */
export const CONNECTION_STATUSES = ["PendingAuth", "Linked", "Unlinked", "Deauthorized"] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];
