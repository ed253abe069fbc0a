/**
 * The sandbox's answers as the service's schemas say (issue 32, item 6): every generated record
 * carries every field its schema requires — the Lending spec's AccountingInvoice, AccountingBill,
 * AccountingAccount, AccountingCustomer and AccountingSupplier, the Commerce spec's Order, Product
 * and Customer (codatio/oas, yaml/Codat-Lending.yaml and json/Codat-Commerce.json) — with amounts
 * that add up; and a list asked for 5,000 a page answers 2,000 (PagingInfo.pageSize's maximum),
 * its `pageSize`, results and `_links` saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { call, createCompany, linkedCompany, syncAndFinish, type LinkedCompany } from "../../testing/raw-http";
import { startTestSandbox, type TestSandbox } from "../../testing/test-sandbox";

/** Records per data type: more than one answered page of 2,000. */
const RECORDS = 2_500;

const ref = z.object({ id: z.string().min(1) });
const status = z.string().min(1);
const amount = z.number();

/** The required fields of each schema (the specs' `required`, at every level the sandbox fills). */
const REQUIRED = {
  invoices: z.object({
    issueDate: z.string().min(1),
    totalTaxAmount: amount,
    totalAmount: amount,
    amountDue: amount,
    status: z.enum(["Unknown", "Draft", "Submitted", "PartiallyPaid", "Paid", "Void"]),
    customerRef: ref.optional(),
    lineItems: z.array(z.object({ unitAmount: amount, quantity: z.number() })).optional(),
  }),
  bills: z.object({
    issueDate: z.string().min(1),
    status: z.enum(["Unknown", "Open", "PartiallyPaid", "Paid", "Void", "Draft"]),
    subTotal: amount,
    taxAmount: amount,
    totalAmount: amount,
    supplierRef: ref.optional(),
  }),
  accounts: z.object({ id: z.string().min(1) }),
  customers: z.object({ status }),
  suppliers: z.object({ status }),
  "commerce-orders": ref.extend({ orderLineItems: z.array(ref.extend({ productRef: ref.optional() })).optional(), customerRef: ref.optional() }),
  "commerce-products": ref.extend({ variants: z.array(ref).optional() }),
  "commerce-customers": ref,
} as const;

type Page = { results: Record<string, unknown>[]; pageNumber: number; pageSize: number; totalResults: number; _links: { next?: { href: string } } };

let sb: TestSandbox;
let apiKey: string;
let accounting: LinkedCompany;

beforeAll(async () => {
  sb = await startTestSandbox();
  ({ apiKey } = await sb.control.createClient({ plan: "paid", syncs: "instant" }));
  accounting = await linkedCompany(sb, { apiKey, platformKey: "qhyg", tenant: { records: RECORDS } });
  await syncAndFinish(sb, apiKey, accounting.companyId);
});

afterAll(async () => {
  await sb.close();
});

async function page(path: string): Promise<Page> {
  const answer = await call(sb, { path, apiKey });
  expect(answer.status, answer.text).toBe(200);
  return answer.json as Page;
}

/** Every record of a list, read 5,000 at a time as asked: each answer holds 2,000 at most. */
async function readAll(path: string, total: number): Promise<Record<string, unknown>[]> {
  const first = await page(`${path}?page=1&pageSize=5000`);
  expect(first).toMatchObject({ pageNumber: 1, pageSize: 2000, totalResults: total });
  expect(first.results).toHaveLength(Math.min(total, 2000));
  const records = [...first.results];
  let next = first._links.next?.href;
  if (total > 2000) expect(next).toBe(`${path}?page=2&pageSize=2000`);
  while (next) {
    const answer = await page(next);
    expect(answer.pageSize).toBe(2000);
    records.push(...answer.results);
    next = answer._links.next?.href;
  }
  expect(records).toHaveLength(total);
  return records;
}

/** The first record failing the schema, with what is missing (undefined when all pass). */
function firstInvalid(schema: z.ZodType, records: readonly unknown[]): string | undefined {
  for (const record of records) {
    const parsed = schema.safeParse(record);
    if (!parsed.success) return `${JSON.stringify(record).slice(0, 300)}: ${parsed.error.message}`;
  }
  return undefined;
}

describe("records as the service's schemas say", () => {
  it.each(["invoices", "bills", "accounts", "customers", "suppliers"] as const)("every one of %s carries every required field, answered 2,000 a page when 5,000 are asked", async (list) => {
    const records = await readAll(`/companies/${accounting.companyId}/data/${list}`, RECORDS);
    expect(firstInvalid(REQUIRED[list], records)).toBeUndefined();
  });

  it("invoices' and bills' amounts add up: lines to subtotal and tax, subtotal and tax to the total", async () => {
    const cents = (n: number) => Math.round(n * 100);
    const invoices = await readAll(`/companies/${accounting.companyId}/data/invoices`, RECORDS);
    for (const invoice of invoices as { subTotal: number; totalTaxAmount: number; totalAmount: number; lineItems: { subTotal: number; taxAmount: number; totalAmount: number }[] }[]) {
      expect(cents(invoice.subTotal) + cents(invoice.totalTaxAmount)).toBe(cents(invoice.totalAmount));
      expect(invoice.lineItems.reduce((n, l) => n + cents(l.subTotal), 0)).toBe(cents(invoice.subTotal));
      expect(invoice.lineItems.reduce((n, l) => n + cents(l.taxAmount), 0)).toBe(cents(invoice.totalTaxAmount));
      for (const line of invoice.lineItems) expect(cents(line.subTotal) + cents(line.taxAmount)).toBe(cents(line.totalAmount));
    }
    const bills = await readAll(`/companies/${accounting.companyId}/data/bills`, RECORDS);
    for (const bill of bills as { subTotal: number; taxAmount: number; totalAmount: number }[]) {
      expect(cents(bill.subTotal) + cents(bill.taxAmount)).toBe(cents(bill.totalAmount));
      expect(bill.taxAmount).toBeGreaterThanOrEqual(0);
    }
  });

  it("commerce orders, products and customers carry every required field", async () => {
    const commerce = await linkedCompany(sb, { apiKey, platformKey: "fztf", tenant: { records: 40 } });
    await syncAndFinish(sb, apiKey, commerce.companyId);
    for (const list of ["commerce-orders", "commerce-products", "commerce-customers"] as const) {
      const records = await readAll(`/companies/${commerce.companyId}/connections/${commerce.connectionId}/data/${list}`, 40);
      expect(firstInvalid(REQUIRED[list], records), list).toBeUndefined();
    }
  });
});

describe("a page asked for more than 2,000", () => {
  it("answers pageSize 2,000 for companies asked 5,000, and 400 past the 5,000 a request may ask", async () => {
    const { apiKey: own } = await sb.control.createClient({ plan: "paid" });
    for (let i = 0; i < 3; i++) await createCompany(sb, own, `Paged ${i}`);
    const answer = await call(sb, { path: "/companies?page=1&pageSize=5000", apiKey: own });
    expect(answer.json).toMatchObject({ pageNumber: 1, pageSize: 2000, totalResults: 3, _links: { current: { href: "/companies?page=1&pageSize=2000" } } });
    expect((answer.json as Page).results).toHaveLength(3);
    const asked = await call(sb, { path: "/companies?page=1&pageSize=2000", apiKey: own });
    expect(asked.json).toMatchObject({ pageSize: 2000 });
    expect((await call(sb, { path: "/companies?pageSize=5001", apiKey: own })).status).toBe(400);
  });
});
