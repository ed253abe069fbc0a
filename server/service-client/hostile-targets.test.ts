/**
 * The service client against targets that answer as an attacker's would, over real local HTTP(S):
 * every kind of call redirected (https to http too) follows nothing and sends nothing on; a 400 MB
 * answer and a gzip bomb stop at the cap with memory flat; a name that resolves (or comes to
 * resolve) to a private, link-local or metadata address is not connected to; a server's control
 * characters never reach the error text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answeringServer, gzipBombServer, hugeAnswerServer, redirectingServer, selfSignedCertificate, type Hostile } from "../testing/hostile-servers";
import { failure } from "../testing/service-fixture";
import { addressRefusal } from "./addresses";
import { createServiceClient, type ServiceClient } from "./client";
import { MAX_ANSWER_BYTES, type Resolve } from "./transport";

const credentials = { accessToken: "at-secret-token-0123456789", refreshToken: "rt-secret-token-9876543210", realmId: "9130" };
const COMPANY = "2f1c1a52-6a40-4a2f-9a55-6d0b1f5a8c11";
const CONNECTION = "8b0e8d2c-1c1e-4f0a-bb0b-3a9f5c7d2e44";

/** Every call the client makes, by name. */
const CALLS: [string, (c: ServiceClient) => Promise<unknown>][] = [
  ["createCompany", (c) => c.createCompany({ name: "Acme", tags: { ferryItem: "item-1" } })],
  ["listCompanies", (c) => c.listCompanies({ page: 1, pageSize: 1 })],
  ["countCompanies", (c) => c.countCompanies()],
  ["findCompaniesByTag", (c) => c.findCompaniesByTag({ name: "ferryItem", value: "item-1" })],
  ["getCompany", (c) => c.getCompany({ companyId: COMPANY })],
  ["listConnections", (c) => c.listConnections({ companyId: COMPANY })],
  ["createConnection", (c) => c.createConnection({ companyId: COMPANY, platformKey: "qhyg" })],
  ["getConnection", (c) => c.getConnection({ companyId: COMPANY, connectionId: CONNECTION })],
  ["authorizeConnection", (c) => c.authorizeConnection({ companyId: COMPANY, connectionId: CONNECTION, credentials })],
  ["refreshAllData", (c) => c.refreshAllData({ companyId: COMPANY })],
  ["getDataStatus", (c) => c.getDataStatus({ companyId: COMPANY })],
  ["getValidationResults", (c) => c.getValidationResults({ companyId: COMPANY, datasetId: CONNECTION })],
  ["listPullOperations", (c) => c.listPullOperations({ companyId: COMPANY, page: 1, pageSize: 1 })],
  ["listAccounts", (c) => c.listAccounts({ companyId: COMPANY, page: 1, pageSize: 1 })],
  ["listInvoices", (c) => c.listDataRecords({ companyId: COMPANY, connectionId: CONNECTION, dataType: "invoices", page: 1, pageSize: 1 })],
  ["listCommerceOrders", (c) => c.listCommerceOrders({ companyId: COMPANY, connectionId: CONNECTION, page: 1, pageSize: 1 })],
];

const REDIRECTS = [301, 302, 303, 307, 308];

let catcher: Hostile;
beforeAll(async () => {
  // Where the redirects point: it must never see a request.
  catcher = await answeringServer({ status: 200, body: { results: [], pageNumber: 1, pageSize: 1, totalResults: 0, _links: { self: { href: "/" }, current: { href: "/" } } } });
});
afterAll(() => catcher.close());

describe("a redirecting target", () => {
  it("fails every kind of call with the status and the location, on the first attempt, and nothing reaches where it points", async () => {
    const target = await redirectingServer({ to: `${catcher.url}/elsewhere`, status: (n) => REDIRECTS[n % REDIRECTS.length] ?? 307 });
    try {
      // Default retries: a redirect is final, not retried.
      const client = createServiceClient({ baseUrl: target.url, apiKey: "the-api-key-0123456789" });
      for (const [operation, run] of CALLS) {
        const error = await failure(run(client));
        expect(error, operation).toMatchObject({ kind: "redirected", operation, attempts: 1, status: expect.any(Number) as number });
        expect(REDIRECTS).toContain(error.status);
        expect(error.error).toContain(`redirecting to ${catcher.url}/elsewhere/`);
        expect(error.message).toContain(`${error.status}`);
        expect(JSON.stringify(error)).not.toContain(credentials.accessToken);
      }
      expect(target.requests.map((r) => r.method)).toContain("PUT");
      expect(catcher.requests).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it("sends the tokens of PUT …/authorization to the target only, when an https target redirects to http", async () => {
    const tls = selfSignedCertificate();
    const target = await redirectingServer({ to: `${catcher.url}/steal`, status: 307, tls });
    try {
      const client = createServiceClient({ baseUrl: target.url, apiKey: "the-api-key-0123456789", ca: tls.cert });
      expect(target.url).toMatch(/^https:/);
      const error = await failure(client.authorizeConnection({ companyId: COMPANY, connectionId: CONNECTION, credentials }));
      expect(error).toMatchObject({ kind: "redirected", status: 307, attempts: 1 });
      expect(error.error).toContain(`redirecting to http://127.0.0.1:${catcher.port}/steal/companies/${COMPANY}`);
      expect(target.requests).toHaveLength(1);
      expect(catcher.requests).toEqual([]);
    } finally {
      await target.close();
    }
  });
});

/** RSS growth (MB) of this process across `run`. */
async function growthMb(run: () => Promise<void>): Promise<number> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  return (peak - before) / 1024 / 1024;
}

describe("an answer larger than the cap", () => {
  for (const declareLength of [false, true]) {
    it(`stops a 400 MB answer at the cap with a clear error, memory flat (length ${declareLength ? "declared" : "not declared"})`, async () => {
      const server = await hugeAnswerServer({ megabytes: 400, declareLength });
      try {
        const client = createServiceClient({ baseUrl: server.url, apiKey: "the-api-key-0123456789", retry: "none" });
        let error: Awaited<ReturnType<typeof failure>> | undefined;
        const growth = await growthMb(async () => {
          error = await failure(client.listCompanies({ page: 1, pageSize: 1 }));
        });
        expect(error).toMatchObject({ kind: "answer_too_large", status: 200, attempts: 1 });
        expect(error?.error).toBe("The answer is larger than 20 MB, the most Ferry reads of one answer: reading stopped there.");
        expect(growth).toBeLessThan(100);
        // Stopped at the cap, not at the end of the answer or a timeout: the server was left with most of it unsent.
        expect(server.bytesSent()).toBeLessThan(MAX_ANSWER_BYTES * 3);
      } finally {
        await server.close();
      }
    });
  }

  it("stops a gzip bomb (under 1 MB on the wire, 700 MB inflated) at the cap counted after decompression, memory flat", async () => {
    const server = await gzipBombServer({ megabytes: 700 });
    try {
      expect(server.compressedBytes).toBeLessThan(1024 * 1024);
      const client = createServiceClient({ baseUrl: server.url, apiKey: "the-api-key-0123456789", retry: "none" });
      let error: Awaited<ReturnType<typeof failure>> | undefined;
      const growth = await growthMb(async () => {
        error = await failure(client.getDataStatus({ companyId: COMPANY }));
      });
      expect(error).toMatchObject({ kind: "answer_too_large", status: 200 });
      expect(growth).toBeLessThan(100);
    } finally {
      await server.close();
    }
  });

  it("reads an answer up to the cap as before", async () => {
    const page = { results: [{ id: COMPANY, name: "x".repeat(1000), redirect: "https://link.example/x" }], pageNumber: 1, pageSize: 1, totalResults: 1, _links: { self: { href: "/" }, current: { href: "/" } } };
    const server = await answeringServer({ status: 200, body: page });
    try {
      const { data } = await createServiceClient({ baseUrl: server.url, apiKey: "the-api-key-0123456789" }).listCompanies();
      expect(data.totalResults).toBe(1);
      const error = await failure(createServiceClient({ baseUrl: server.url, apiKey: "the-api-key-0123456789", maxAnswerBytes: 512 }).listCompanies());
      expect(error.kind).toBe("answer_too_large");
    } finally {
      await server.close();
    }
  });
});

describe("the addresses a target may reach", () => {
  const resolveTo =
    (...answers: string[][]): Resolve & { calls: number } => {
      const fn = Object.assign(
        async (): Promise<{ address: string; family: number }[]> => {
          const list = answers[Math.min(fn.calls, answers.length - 1)] ?? [];
          fn.calls += 1;
          return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
        },
        { calls: 0 },
      );
      return fn;
    };

  it("connects to a name that resolves to loopback, and not once the same name resolves to a metadata address (rebinding)", async () => {
    const server = await answeringServer({ status: 200, body: { results: [], pageNumber: 1, pageSize: 1, totalResults: 3, _links: { self: { href: "/" }, current: { href: "/" } } } });
    try {
      const resolve = resolveTo(["127.0.0.1"], ["169.254.169.254"]);
      // A fresh dispatcher per client: the second client connects anew and looks the name up again.
      const first = createServiceClient({ baseUrl: `http://rebind.test:${server.port}`, apiKey: "the-api-key-0123456789", resolve });
      expect((await first.countCompanies()).data).toBe(3);
      const second = createServiceClient({ baseUrl: `http://rebind.test:${server.port}`, apiKey: "the-api-key-0123456789", resolve, retry: "none" });
      const error = await failure(second.countCompanies());
      expect(error).toMatchObject({ kind: "address_refused", status: null, attempts: 1 });
      expect(error.error).toContain("rebind.test");
      expect(error.error).toContain("169.254.169.254 is a link-local, metadata or unspecified address");
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("refuses names that resolve to private or link-local addresses, and addresses written in the URL, before connecting (no retry)", async () => {
    const cases: [string, string[], string][] = [
      ["https://private.test", ["10.1.2.3"], "10.1.2.3 is a private network address"],
      ["https://private.test", ["172.20.0.9"], "172.20.0.9 is a private network address"],
      ["https://private.test", ["192.168.1.20"], "192.168.1.20 is a private network address"],
      ["https://private.test", ["fd12:3456::1"], "fd12:3456::1 is a private network address"],
      ["https://mixed.test", ["93.184.216.34", "10.0.0.8"], "10.0.0.8 is a private network address"],
      ["https://metadata.test", ["169.254.169.254"], "link-local, metadata"],
      ["https://v6.test", ["fe80::1"], "link-local, metadata"],
      ["http://public.test", ["93.184.216.34"], "plain http is only for loopback"],
      ["https://10.0.0.5", [], "10.0.0.5 is a private network address"],
      ["https://169.254.169.254", [], "link-local, metadata"],
      ["https://[fd00::5]", [], "fd00::5 is a private network address"],
      ["https://[::ffff:192.168.0.1]", [], "private network address"],
      ["http://192.168.0.1", [], "plain http is only for loopback"],
    ];
    for (const [baseUrl, addresses, words] of cases) {
      const resolve = resolveTo(addresses);
      const error = await failure(createServiceClient({ baseUrl, apiKey: "the-api-key-0123456789", resolve }).authorizeConnection({ companyId: COMPANY, connectionId: CONNECTION, credentials }));
      expect(error, baseUrl).toMatchObject({ kind: "address_refused", attempts: 1 });
      expect(error.error, baseUrl).toContain(words);
    }
  });

  it("the rule: private addresses only when allowed, link-local and metadata never, http only to loopback, the built-in sandbox anything", () => {
    const rule = (address: string, policy: "public" | "private" | "any", protocol = "https:") => addressRefusal({ address, protocol, policy });
    for (const address of ["10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.10.10", "fc00::1", "fd00::1", "100.64.0.1", "::ffff:10.0.0.1"]) {
      expect(rule(address, "public"), address).toContain("private network address");
      expect(rule(address, "private"), address).toBeNull();
      expect(rule(address, "private", "http:"), address).toContain("plain http");
    }
    for (const address of ["169.254.169.254", "169.254.0.1", "fe80::1", "fd00:ec2::254", "100.100.100.200", "0.0.0.0", "::ffff:169.254.169.254"]) {
      expect(rule(address, "private"), address).toContain("link-local, metadata");
      expect(rule(address, "any"), address).toBeNull();
    }
    for (const address of ["93.184.216.34", "172.32.0.1", "2606:4700::1111", "127.0.0.1", "::1"]) expect(rule(address, "public"), address).toBeNull();
    expect(rule("127.0.0.1", "public", "http:")).toBeNull();
    expect(rule("93.184.216.34", "any", "http:")).toBeNull();
  });
});

describe("what a server says", () => {
  it("is kept without its control characters: error text, service, correlationId and validation messages", async () => {
    const server = await answeringServer({
      status: 400,
      body: {
        statusCode: 400,
        service: "Public\u001bApi",
        error: "Bad\r\n[ferry] 2026-01-01 forged line\u001b[31m red\u0000\u202e",
        correlationId: "abc\n123",
        validation: { errors: [{ itemId: "x\ty", message: "one\ntwo\u0007", validatorName: "V\u0085" }], warnings: [] },
      },
    });
    try {
      const error = await failure(createServiceClient({ baseUrl: server.url, apiKey: "the-api-key-0123456789" }).getCompany({ companyId: COMPANY }));
      expect(error).toMatchObject({
        kind: "bad_request",
        service: "PublicApi",
        error: "Bad [ferry] 2026-01-01 forged line[31m red",
        correlationId: "abc 123",
        validation: { errors: [{ itemId: "x y", message: "one two", validatorName: "V" }], warnings: [] },
      });
      expect(error.message).not.toMatch(/[\p{Cc}]/u);
    } finally {
      await server.close();
    }
  });
});
