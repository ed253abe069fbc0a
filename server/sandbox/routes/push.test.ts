/**
 * Push (write) operations: created Pending with 200, resolved asynchronously to Success, Failed
 * (with validation) or TimedOut; the platform's own code (202 when it accepts for processing) is
 * recorded beside the service's.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arr, call, createCompany, createConnection, linkedCompany, str } from "../../testing/raw-http";
import { startTestSandbox, type TestSandbox } from "../../testing/test-sandbox";

let sb: TestSandbox;
let apiKey: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  ({ apiKey } = await sb.control.createClient({ plan: "paid" }));
});

afterAll(async () => {
  await sb.close();
});

function push(companyId: string, connectionId: string, dataType: string, body: unknown, query = "") {
  return call(sb, { method: "POST", path: `/companies/${companyId}/connections/${connectionId}/push/${dataType}${query}`, apiKey, body });
}

function getPush(companyId: string, key: string) {
  return call(sb, { path: `/companies/${companyId}/push/${key}`, apiKey });
}

describe("push operations", () => {
  it("Pending (service 200, platform 202) → Success, listed in the history", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "qhyg", tenant: { pushDelaySeconds: 30 } });
    const created = await push(linked.companyId, linked.connectionId, "invoices", {
      customerRef: { id: "CUS-000001" },
      lineItems: [{ description: "Consulting", quantity: 1, unitAmount: 100 }],
    });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({
      dataType: "invoices",
      companyId: linked.companyId,
      pushOperationKey: expect.stringMatching(/^[0-9a-f-]{36}$/),
      dataConnectionKey: linked.connectionId,
      requestedOnUtc: expect.any(String),
      status: "Pending",
      statusCode: 200,
      platformStatusCode: 202,
    });
    const key = str(created.json, "pushOperationKey");
    expect((await getPush(linked.companyId, key)).json).toMatchObject({ status: "Pending" });

    await sb.control.advanceClock({ seconds: 31 });
    const done = await getPush(linked.companyId, key);
    expect(done.json).toMatchObject({
      status: "Success",
      statusCode: 200,
      platformStatusCode: 202,
      completedOnUtc: expect.any(String),
      changes: [{ type: "Created", recordRef: { id: expect.any(String), dataType: "invoices" } }],
    });
    const history = await call(sb, { path: `/companies/${linked.companyId}/push?page=1&pageSize=10`, apiKey });
    expect(history.json).toMatchObject({ totalResults: 1, results: [{ pushOperationKey: key, status: "Success" }] });
    const filtered = await call(sb, { path: `/companies/${linked.companyId}/push?query=status%3DFailed`, apiKey });
    expect(filtered.json).toMatchObject({ totalResults: 0 });
  });

  it("a platform that writes at once answers 201; the operation still starts Pending", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "rwuv", tenant: { pushDelaySeconds: 0 } });
    const created = await push(linked.companyId, linked.connectionId, "customers", { customerName: "New Customer" });
    expect(created.json).toMatchObject({ status: "Pending", statusCode: 200, platformStatusCode: 201 });
    await sb.control.advanceClock({ seconds: 1 });
    expect((await getPush(linked.companyId, str(created.json, "pushOperationKey"))).json).toMatchObject({ status: "Success" });
  });

  it("Failed with the platform's validation", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "fbrh" });
    const created = await push(linked.companyId, linked.connectionId, "accounts", { name: "Sales", nominalCode: "12345678901" });
    expect(created.json).toMatchObject({ status: "Pending" });
    await sb.control.advanceClock({ seconds: 5 });
    const failed = await getPush(linked.companyId, str(created.json, "pushOperationKey"));
    expect(failed.json).toMatchObject({
      dataType: "chartOfAccounts",
      status: "Failed",
      statusCode: 400,
      errorMessage: expect.stringContaining("Push failed for Account"),
      validation: {
        errors: [
          {
            itemId: "NominalCode",
            message: "Failed to push to Account as NominalCode must not be longer than 10 characters long.",
            validatorName: "Account",
          },
        ],
        warnings: [],
      },
    });
  });

  it("TimedOut when the platform takes longer than timeoutInMinutes", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "pbtz", tenant: { pushDelaySeconds: 7200 } });
    const created = await push(linked.companyId, linked.connectionId, "suppliers", { supplierName: "Slow Supplies" }, "?timeoutInMinutes=1");
    expect(created.json).toMatchObject({ status: "Pending", timeoutInMinutes: 1 });
    await sb.control.advanceClock({ seconds: 61 });
    const timedOut = await getPush(linked.companyId, str(created.json, "pushOperationKey"));
    expect(timedOut.json).toMatchObject({ status: "TimedOut", statusCode: 200, platformStatusCode: 202, completedOnUtc: expect.any(String) });
  });

  it("Failed 401 after the customer's app rotated the tokens; the connection becomes Deauthorized", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "vxvy" });
    await sb.control.rotate("vxvy", linked.tenant.tenantId);
    await sb.control.advanceClock({ days: 1 });
    const created = await push(linked.companyId, linked.connectionId, "customers", { customerName: "Late" });
    await sb.control.advanceClock({ seconds: 5 });
    const failed = await getPush(linked.companyId, str(created.json, "pushOperationKey"));
    expect(failed.json).toMatchObject({ status: "Failed", statusCode: 401, errorMessage: expect.stringContaining("Reauthorization is required") });
    const connection = await call(sb, { path: `/companies/${linked.companyId}/connections/${linked.connectionId}`, apiKey });
    expect(connection.json).toMatchObject({ status: "Deauthorized" });
  });

  it("refuses what cannot be written", async () => {
    const shop = await linkedCompany(sb, { apiKey, platformKey: "fztf" });
    const unsupported = await push(shop.companyId, shop.connectionId, "invoices", { customerRef: { id: "x" } });
    expect(unsupported.status).toBe(404);
    expect(unsupported.json).toMatchObject({ error: "Datatype invoices not supported by platform(s) Shopify" });

    const books = await linkedCompany(sb, { apiKey, platformKey: "qhyg" });
    expect((await push(books.companyId, books.connectionId, "widgets", {})).status).toBe(404);
    expect((await push(books.companyId, books.connectionId, "toString", {})).status).toBe(404);
    expect((await push(books.companyId, books.connectionId, "customers", [1, 2])).status).toBe(400);
    const badTimeout = await push(books.companyId, books.connectionId, "customers", { customerName: "A" }, "?timeoutInMinutes=0");
    expect(badTimeout.status).toBe(400);

    const companyId = await createCompany(sb, apiKey, "Not linked");
    const connectionId = await createConnection(sb, apiKey, companyId, "qhyg");
    const pending = await push(companyId, connectionId, "customers", { customerName: "A" });
    expect(pending.status).toBe(400);
    expect(arr((pending.json as { validation: unknown }).validation, "errors")[0]).toMatchObject({ itemId: "connectionId" });

    expect((await getPush(books.companyId, randomUUID())).status).toBe(404);
  });
});
