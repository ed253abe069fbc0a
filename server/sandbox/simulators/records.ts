/**
 * The tenants' data, generated on demand and deterministic: record `i` of a data type depends
 * only on the tenant id, the data type and `i`, so a page can be built without the others and
 * the same sync always reads the same records.
 */
import type { DataType } from "../../platforms";
import type { TenantRow } from "../store/store";

type Rng = () => number;

/** 32-bit FNV-1a of a string. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, good enough for fake data. */
function rngFor(seed: string): Rng {
  let a = hash(seed);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

function money(rng: Rng, max: number): number {
  return Math.round(rng() * max * 100) / 100;
}

/** An amount rounded to the cent. */
function cents(amount: number): number {
  return Math.round(amount * 100) / 100;
}

/** The tax rate on generated invoices and bills (UK VAT's standard rate). */
const TAX_RATE = 0.2;

const BASE = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;

function day(offsetDays: number): string {
  return new Date(BASE + Math.floor(offsetDays) * DAY).toISOString().replace(".000Z", "Z");
}

function pad(n: number): string {
  return String(n).padStart(6, "0");
}

const FIRST = ["Ada", "Bram", "Chloe", "Dev", "Esme", "Farid", "Greta", "Hugo", "Iris", "Jonah", "Kemi", "Luca"];
const LAST = ["Okafor", "Lindqvist", "Moreau", "Patel", "Nakamura", "Byrne", "Costa", "Haddad", "Novak", "Reyes"];
const TRADES = ["Bakery", "Joinery", "Print Works", "Studio", "Logistics", "Dental", "Garden Supply", "Coffee"];
const ACCOUNT_TYPES = [
  { type: "Asset", category: "Asset.Current.Bank", name: "Business Current Account" },
  { type: "Asset", category: "Asset.Current.Receivables", name: "Accounts Receivable" },
  { type: "Liability", category: "Liability.Current.Payables", name: "Accounts Payable" },
  { type: "Liability", category: "Liability.Current.Tax", name: "VAT Control" },
  { type: "Equity", category: "Equity.Owners.Capital", name: "Owner's Capital" },
  { type: "Income", category: "Income.Revenue.Sales", name: "Sales" },
  { type: "Expense", category: "Expense.Operating.Rent", name: "Rent" },
  { type: "Expense", category: "Expense.Operating.Travel", name: "Travel" },
] as const;
const PRODUCTS = ["Mug", "Tote Bag", "Notebook", "Candle", "Poster", "Hoodie", "Cap", "Socks", "Print", "Tea Tin"];
const CURRENCIES = ["GBP", "USD", "EUR", "CAD", "AUD"] as const;

/** The tenant's currency: stable per tenant. */
export function tenantCurrency(tenant: Pick<TenantRow, "id">): string {
  return pick(rngFor(`${tenant.id}:currency`), CURRENCIES);
}

function personName(rng: Rng): string {
  return `${pick(rng, FIRST)} ${pick(rng, LAST)}`;
}

function businessName(rng: Rng): string {
  return `${pick(rng, LAST)} ${pick(rng, TRADES)}`;
}

type BuildContext = { index: number; rng: Rng; currency: string; count: number };

/** A list data type the sandbox serves, with its read path and record builder. */
export type ListKind = {
  dataType: DataType;
  /** Last path segment of the read endpoint (`accounts`, `commerce-orders`, ...). */
  path: string;
  /** Entity name in query errors. */
  entity: string;
  build(ctx: BuildContext): Record<string, unknown>;
};

function modified(ctx: BuildContext): { modifiedDate: string; sourceModifiedDate: string } {
  const d = day(300 + ctx.rng() * 300);
  return { modifiedDate: d, sourceModifiedDate: d };
}

function ref(prefix: string, count: number, rng: Rng): string {
  return `${prefix}-${pad(1 + Math.floor(rng() * Math.max(1, count)))}`;
}

export const LIST_KINDS: readonly ListKind[] = [
  {
    dataType: "chartOfAccounts",
    path: "accounts",
    entity: "Account",
    build: (ctx) => {
      const base = ACCOUNT_TYPES[ctx.index % ACCOUNT_TYPES.length] ?? ACCOUNT_TYPES[0];
      const series = Math.floor(ctx.index / ACCOUNT_TYPES.length);
      const name = series === 0 ? base.name : `${base.name} ${series + 1}`;
      return {
        id: `ACC-${pad(ctx.index + 1)}`,
        nominalCode: String(1000 + ctx.index * 10),
        name,
        description: `${name} (${base.type.toLowerCase()})`,
        fullyQualifiedCategory: base.category,
        fullyQualifiedName: `${base.category}.${name}`,
        currency: ctx.currency,
        currentBalance: money(ctx.rng, 50_000),
        type: base.type,
        status: "Active",
        isBankAccount: base.category === "Asset.Current.Bank",
        ...modified(ctx),
      };
    },
  },
  {
    dataType: "invoices",
    path: "invoices",
    entity: "Invoice",
    build: (ctx) => {
      const lines = 1 + Math.floor(ctx.rng() * 3);
      const lineItems = Array.from({ length: lines }, (_, i) => {
        const quantity = 1 + Math.floor(ctx.rng() * 5);
        const unitAmount = money(ctx.rng, 400);
        const subTotal = cents(quantity * unitAmount);
        const taxAmount = cents(subTotal * TAX_RATE);
        return { lineNumber: i + 1, description: `Services ${i + 1}`, quantity, unitAmount, subTotal, taxAmount, totalAmount: cents(subTotal + taxAmount) };
      });
      // The invoice's amounts are its lines' sums: subTotal + totalTaxAmount = totalAmount.
      const subTotal = cents(lineItems.reduce((sum, l) => sum + l.subTotal, 0));
      const totalTaxAmount = cents(lineItems.reduce((sum, l) => sum + l.taxAmount, 0));
      const total = cents(subTotal + totalTaxAmount);
      const status = pick(ctx.rng, ["Paid", "Submitted", "PartiallyPaid", "Draft"] as const);
      const issued = ctx.rng() * 540;
      return {
        id: `INV-${pad(ctx.index + 1)}`,
        invoiceNumber: `INV${pad(ctx.index + 1)}`,
        customerRef: { id: ref("CUS", ctx.count, ctx.rng), companyName: businessName(ctx.rng) },
        issueDate: day(issued),
        dueDate: day(issued + 30),
        currency: ctx.currency,
        subTotal,
        totalTaxAmount,
        totalAmount: total,
        amountDue: status === "Paid" ? 0 : status === "PartiallyPaid" ? Math.round(total * 50) / 100 : total,
        status,
        lineItems,
        ...modified(ctx),
      };
    },
  },
  {
    dataType: "customers",
    path: "customers",
    entity: "Customer",
    build: (ctx) => {
      const contact = personName(ctx.rng);
      return {
        id: `CUS-${pad(ctx.index + 1)}`,
        customerName: businessName(ctx.rng),
        contactName: contact,
        emailAddress: `${contact.toLowerCase().replace(/\s+/g, ".")}@example.com`,
        phone: `+44 20 7946 ${String(ctx.index % 10_000).padStart(4, "0")}`,
        defaultCurrency: ctx.currency,
        status: "Active",
        ...modified(ctx),
      };
    },
  },
  {
    dataType: "suppliers",
    path: "suppliers",
    entity: "Supplier",
    build: (ctx) => {
      const contact = personName(ctx.rng);
      return {
        id: `SUP-${pad(ctx.index + 1)}`,
        supplierName: businessName(ctx.rng),
        contactName: contact,
        emailAddress: `${contact.toLowerCase().replace(/\s+/g, ".")}@example.org`,
        defaultCurrency: ctx.currency,
        status: "Active",
        ...modified(ctx),
      };
    },
  },
  {
    dataType: "bills",
    path: "bills",
    entity: "Bill",
    build: (ctx) => {
      const total = money(ctx.rng, 3_000);
      // The total includes tax at TAX_RATE: subTotal + taxAmount = totalAmount.
      const subTotal = cents(total / (1 + TAX_RATE));
      const status = pick(ctx.rng, ["Open", "Paid", "PartiallyPaid"] as const);
      const issued = ctx.rng() * 540;
      return {
        id: `BIL-${pad(ctx.index + 1)}`,
        reference: `PO-${pad(ctx.index + 1)}`,
        supplierRef: { id: ref("SUP", ctx.count, ctx.rng), supplierName: businessName(ctx.rng) },
        issueDate: day(issued),
        dueDate: day(issued + 30),
        currency: ctx.currency,
        subTotal,
        taxAmount: cents(total - subTotal),
        totalAmount: total,
        amountDue: status === "Paid" ? 0 : total,
        status,
        ...modified(ctx),
      };
    },
  },
  {
    dataType: "purchaseOrders",
    path: "purchaseOrders",
    entity: "PurchaseOrder",
    build: (ctx) => {
      const issued = ctx.rng() * 540;
      return {
        id: `POR-${pad(ctx.index + 1)}`,
        purchaseOrderNumber: `PO${pad(ctx.index + 1)}`,
        supplierRef: { id: ref("SUP", ctx.count, ctx.rng), supplierName: businessName(ctx.rng) },
        issueDate: day(issued),
        expectedDeliveryDate: day(issued + 14),
        currency: ctx.currency,
        totalAmount: money(ctx.rng, 5_000),
        status: pick(ctx.rng, ["Open", "Closed"] as const),
        ...modified(ctx),
      };
    },
  },
  {
    dataType: "commerce-orders",
    path: "commerce-orders",
    entity: "Order",
    build: (ctx) => {
      const lines = 1 + Math.floor(ctx.rng() * 3);
      const orderLineItems = Array.from({ length: lines }, (_, i) => {
        const quantity = 1 + Math.floor(ctx.rng() * 4);
        const unitPrice = money(ctx.rng, 80);
        return {
          id: `LIN-${pad(ctx.index + 1)}-${i + 1}`,
          productRef: { id: ref("PRD", ctx.count, ctx.rng) },
          quantity,
          unitPrice,
          totalAmount: Math.round(quantity * unitPrice * 100) / 100,
        };
      });
      const total = Math.round(orderLineItems.reduce((sum, l) => sum + l.totalAmount, 0) * 100) / 100;
      const created = day(ctx.rng() * 540);
      return {
        id: `ORD-${pad(ctx.index + 1)}`,
        orderNumber: `#${1000 + ctx.index}`,
        country: pick(ctx.rng, ["GB", "US", "CA", "AU", "DE"] as const),
        currency: ctx.currency,
        createdDate: created,
        closedDate: created,
        totalAmount: total,
        totalTaxAmount: Math.round(total * 20) / 100,
        customerRef: { id: ref("CUS", ctx.count, ctx.rng), name: personName(ctx.rng) },
        orderLineItems,
        ...modified(ctx),
      };
    },
  },
  {
    dataType: "commerce-products",
    path: "commerce-products",
    entity: "Product",
    build: (ctx) => {
      const name = `${pick(ctx.rng, PRODUCTS)} ${ctx.index + 1}`;
      return {
        id: `PRD-${pad(ctx.index + 1)}`,
        name,
        description: `A ${name.toLowerCase()} from the demo catalogue`,
        categorization: pick(ctx.rng, ["Product", "Service"] as const),
        variants: [
          {
            id: `VAR-${pad(ctx.index + 1)}`,
            name: "Default",
            sku: `SKU-${pad(ctx.index + 1)}`,
            unitOfMeasure: "each",
            prices: [{ currency: ctx.currency, unitPrice: money(ctx.rng, 80) }],
            isTaxEnabled: true,
          },
        ],
        ...modified(ctx),
      };
    },
  },
  {
    dataType: "commerce-customers",
    path: "commerce-customers",
    entity: "Customer",
    build: (ctx) => {
      const name = personName(ctx.rng);
      return {
        id: `CUS-${pad(ctx.index + 1)}`,
        customerName: name,
        emailAddress: `${name.toLowerCase().replace(/\s+/g, ".")}@example.net`,
        phone: `+1 555 01${String(ctx.index % 100).padStart(2, "0")}`,
        addresses: [],
        createdDate: day(ctx.rng() * 540),
        ...modified(ctx),
      };
    },
  },
];

const listKindsByDataType = new Map<string, ListKind>(LIST_KINDS.map((k) => [k.dataType, k]));

/** The list kind serving a data type, if the sandbox serves it. */
export function listKind(dataType: string): ListKind | undefined {
  return listKindsByDataType.get(dataType);
}

/** Record `index` (0-based) of a list data type for a tenant holding `count` records. */
export function buildRecord(params: { kind: ListKind; tenant: TenantRow; index: number; count: number }): Record<string, unknown> {
  return params.kind.build({
    index: params.index,
    count: params.count,
    currency: tenantCurrency(params.tenant),
    rng: rngFor(`${params.tenant.id}:${params.kind.dataType}:${params.index}`),
  });
}

/** Records `[start, end)` of a list data type. */
export function buildRecords(params: { kind: ListKind; tenant: TenantRow; start: number; end: number; count: number }) {
  const out: Record<string, unknown>[] = [];
  for (let i = Math.max(0, params.start); i < Math.min(params.end, params.count); i++) {
    out.push(buildRecord({ kind: params.kind, tenant: params.tenant, index: i, count: params.count }));
  }
  return out;
}

const propertiesByKind = new Map<ListKind, ReadonlySet<string>>();

/** The property names of a list kind's records (for query validation), from one sample record. */
export function recordProperties(kind: ListKind): ReadonlySet<string> {
  let properties = propertiesByKind.get(kind);
  if (!properties) {
    properties = new Set(Object.keys(kind.build({ index: 0, count: 1, currency: "GBP", rng: rngFor("sample") })));
    propertiesByKind.set(kind, properties);
  }
  return properties;
}

/** The accounting company profile (`/data/info`). */
export function accountingCompanyInfo(params: { tenant: TenantRow; platformName: string }): Record<string, unknown> {
  const rng = rngFor(`${params.tenant.id}:company`);
  return {
    companyName: params.tenant.name,
    accountingPlatformRef: params.tenant.id,
    companyLegalName: `${params.tenant.name} Ltd`,
    addresses: [{ type: "Billing", line1: `${1 + Math.floor(rng() * 200)} High Street`, city: "London", country: "GB" }],
    phoneNumbers: [{ number: "+44 20 7946 0000", type: "Landline" }],
    webLinks: [{ type: "Website", url: "https://example.com" }],
    registrationNumber: String(10_000_000 + Math.floor(rng() * 89_999_999)),
    taxNumber: `GB${String(100_000_000 + Math.floor(rng() * 899_999_999))}`,
    financialYearStartDate: "2024-04-01T00:00:00Z",
    baseCurrency: tenantCurrency(params.tenant),
    sourceUrls: { [params.platformName]: "https://example.com/company" },
    createdDate: day(rng() * 200),
  };
}

/** The commerce company profile (`/data/commerce-info`). */
export function commerceCompanyInfo(params: { tenant: TenantRow; platformName: string }): Record<string, unknown> {
  const rng = rngFor(`${params.tenant.id}:commerce-companyInfo`);
  return {
    companyName: params.tenant.name,
    commercePlatformRef: params.tenant.id,
    companyLegalName: `${params.tenant.name} Ltd`,
    baseCurrency: tenantCurrency(params.tenant),
    addresses: [{ type: "Billing", line1: `${1 + Math.floor(rng() * 200)} Market Street`, city: "Manchester", country: "GB" }],
    phoneNumbers: [{ number: "+44 161 496 0000", type: "Landline" }],
    webLinks: [{ type: "Website", url: "https://example.com/shop" }],
    registrationNumber: String(10_000_000 + Math.floor(rng() * 89_999_999)),
    createdDate: day(rng() * 200),
  };
}
