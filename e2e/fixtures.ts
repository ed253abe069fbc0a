/**
 * Playwright fixtures: sign-in through next-auth's API once per person and worker (the session's
 * cookies kept and given to each page after: never the form, except in the sign-in tests), a small
 * tRPC-over-HTTP client, and factories that create uniquely named data so specs share one database
 * without depending on each other or on order.
 */
import fs from "node:fs";
import path from "node:path";
import demoLogins from "@/server/demo/demo-logins.json";
import { test as base, expect, request as playwrightRequest, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import superjson from "superjson";
import { createControlClient, type SandboxControl, type SyncMode, type Tenant } from "@/server/sandbox/controls/control-client";

export type Credentials = { email: string; password: string };

/** The demo sign-ins seeded by server/demo/seed-demo.ts (from the same JSON file, not the server module). */
const login = (email: string): Credentials => {
  const found = demoLogins.find((l) => l.email === email);
  if (!found) throw new Error(`No demo login ${email} in server/demo/demo-logins.json`);
  return { email: found.email, password: found.password };
};
export const DEMO = {
  admin: login("admin@ferry.test"),
  sam: login("sam@ferry.test"),
  priya: login("priya@ferry.test"),
  carol: login("carol@acme.test"),
  dan: login("dan@bluebird.test"),
} as const satisfies Record<string, Credentials>;

/** A short random suffix that keeps names unique across parallel workers and repeated runs. */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
}

/**
 * Signs in through next-auth's credentials endpoint. With `page.request` the session cookie lands
 * in the page's browser context.
 */
export async function signInWithApi(request: APIRequestContext, credentials: Credentials): Promise<void> {
  const csrf = await request.get("/api/auth/csrf");
  expect(csrf.ok()).toBeTruthy();
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await request.post("/api/auth/callback/credentials", {
    form: { csrfToken, email: credentials.email, password: credentials.password, json: "true" },
  });
  expect(response.ok()).toBeTruthy();
  const { url } = (await response.json()) as { url: string };
  const error = new URL(url).searchParams.get("error");
  if (error) throw new Error(`Sign-in as ${credentials.email} failed: ${error}`);
}

type StorageState = Awaited<ReturnType<APIRequestContext["storageState"]>>;

/**
 * Each person's signed-in session, made once per worker process (Playwright's `storageState`): a
 * sign-in costs a password hash on the server, and journeys sign the same demo people in hundreds
 * of times. Only for people nobody signs out everywhere (tests that do use people of their own).
 */
const sessions = new Map<string, Promise<StorageState>>();
export function sessionOf(credentials: Credentials): Promise<StorageState> {
  let state = sessions.get(credentials.email);
  if (!state) {
    state = (async () => {
      const context = await playwrightRequest.newContext({ baseURL: `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}` });
      try {
        await signInWithApi(context, credentials);
        return await context.storageState();
      } finally {
        await context.dispose();
      }
    })();
    state.catch(() => sessions.delete(credentials.email));
    sessions.set(credentials.email, state);
  }
  return state;
}

/** Signs the page in as someone (their session of this worker) without touching the sign-in form. */
export async function signIn(page: Page, credentials: Credentials): Promise<void> {
  await page.context().addCookies((await sessionOf(credentials)).cookies);
}

/**
 * The engagement page shows one step at a time: opens step `n` through the steps' navigation, as
 * people do, and answers the step's region.
 */
export async function openStep(page: Page, n: number): Promise<Locator> {
  const link = page.getByRole("navigation", { name: "Engagement steps" }).getByRole("link", { name: new RegExp(`^Step ${n}:`) });
  await link.click();
  await expect(link).toHaveAttribute("aria-current", "page");
  const region = page.getByRole("region", { name: new RegExp(`^Step ${n}: `) });
  await expect(region).toBeVisible();
  return region;
}

export type Step6Part = "Bulk migration" | "Reconnections" | "Fresh tokens" | "Handover report";

/** Opens one part of step 6 (the bulk run, the reconnections, fresh tokens, the handover report) and answers step 6's region. */
export async function openStep6Part(page: Page, part: Step6Part): Promise<Locator> {
  const parts = page.getByRole("navigation", { name: "Parts of step 6" });
  if (!(await parts.isVisible())) await openStep(page, 6);
  const link = parts.getByRole("link", { name: new RegExp(`^${part}`) });
  await link.click();
  await expect(link).toHaveAttribute("aria-current", "page");
  return page.getByRole("region", { name: "Step 6: Bulk migration and handover" });
}

/** Opens the engagement's activity (its audit timeline, newest first) and answers the list. */
export async function openActivity(page: Page): Promise<Locator> {
  await page.getByRole("navigation", { name: "Engagement steps" }).getByRole("link", { name: "Activity" }).click();
  const list = page.getByRole("list", { name: "Audit events, newest first" });
  await expect(list).toBeVisible();
  return list;
}

type TrpcErrorBody = { error?: { json?: { message?: string } } };

/** tRPC over HTTP with superjson's envelope (so inputs may carry Dates). */
export class TrpcApi {
  constructor(readonly request: APIRequestContext) {}

  async query<T>(path: string, input?: unknown): Promise<T> {
    const qs = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`;
    return this.unwrap<T>(path, await this.request.get(`/api/trpc/${path}${qs}`));
  }

  async mutation<T>(path: string, input: unknown): Promise<T> {
    return this.unwrap<T>(path, await this.request.post(`/api/trpc/${path}`, { data: superjson.serialize(input) }));
  }

  private async unwrap<T>(path: string, response: Awaited<ReturnType<APIRequestContext["get"]>>): Promise<T> {
    const body = (await response.json()) as { result?: { data?: { json?: T } } } & TrpcErrorBody;
    if (!response.ok() || !body.result?.data) {
      throw new Error(`tRPC ${path} failed (${response.status()}): ${body.error?.json?.message ?? "no message"}`);
    }
    return body.result.data.json as T;
  }
}

/**
 * Well-formed, distinct credentials for company `i` of a platform (the e2e tests' own, so they
 * need no server module): the fields each platform's token file takes.
 */
export function e2eCredentials(platformKey: string, i: number): Record<string, string> {
  const tag = `${uniqueSuffix()}${i}`.replace(/[^a-z0-9]/g, "").padEnd(10, "0");
  const tokens = { accessToken: `${platformKey}.at.${tag}`, refreshToken: `${platformKey}.rt.${tag}`, expiresAt: "2099-01-01T00:00:00Z" };
  const digits = String(Date.now()).slice(-8) + String(i).padStart(4, "0");
  switch (platformKey) {
    case "fbrh":
      return tokens;
    case "vxvy":
      return { ...tokens, accountId: `AC${tag.slice(0, 8)}` };
    case "qhyg":
      return { ...tokens, realmId: `9130${digits}` };
    case "pbtz":
      return { ...tokens, businessId: Buffer.from(`Business:${tag}`).toString("base64") };
    case "rwuv":
      return { ...tokens, organizationId: `6${digits}` };
    case "fztf":
      return { shopDomain: `shop-${tag}.myshopify.com`, accessToken: `shpat_${tag}abcdef` };
    default:
      throw new Error(`e2eCredentials: no credentials for ${platformKey}`);
  }
}

/** A token file (CSV) of companies with their credentials (and external refs and `records` hints when given). */
export function tokenCsv(companies: { name: string; credentials: Record<string, string>; records?: number; externalRef?: string }[]): string {
  const fields = [...new Set(companies.flatMap((c) => Object.keys(c.credentials)))];
  const order = ["accessToken", "refreshToken", "expiresAt", "realmId", "accountId", "businessId", "organizationId", "dataCenter", "shopDomain"];
  fields.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const records = companies.some((c) => c.records !== undefined);
  const refs = companies.some((c) => c.externalRef !== undefined);
  const lines = [
    ["companyName", ...(refs ? ["externalRef"] : []), ...fields, ...(records ? ["records"] : [])].join(","),
    ...companies.map((c) =>
      [c.name, ...(refs ? [c.externalRef ?? ""] : []), ...fields.map((f) => c.credentials[f] ?? ""), ...(records ? [String(c.records ?? "")] : [])].join(","),
    ),
  ];
  return `${lines.join("\r\n")}\r\n`;
}

/** Submits the details and a token file as a customer, through the upload route; fails the test unless stored. */
export async function submitTokenFile(request: APIRequestContext, engagementId: string, csv: string): Promise<{ submissionId: string }> {
  const response = await request.post(`/api/engagements/${engagementId}/token-file`, {
    multipart: {
      file: { name: "companies.csv", mimeType: "text/csv", buffer: Buffer.from(csv) },
      clientId: "e2e-client-id",
      clientSecret: `e2e-secret-${uniqueSuffix()}`,
      contacts: JSON.stringify([{ name: "E2E Contact", email: "contact@e2e.test" }]),
    },
  });
  const body = (await response.json()) as { submissionId?: string; error?: { message: string } };
  if (!response.ok() || !body.submissionId) throw new Error(`Token file refused (${response.status()}): ${body.error?.message}`);
  return { submissionId: body.submissionId };
}

export type Organization = { id: string; name: string };
export type Engagement = { id: string; reference: string };
export type CustomerUser = Credentials & { name: string; organization: Organization };

export type Factory = {
  /** A customer organisation with a unique name. */
  organization: (prefix?: string) => Promise<Organization>;
  /** An engagement (owned by Sam unless told otherwise) for an organisation on a managed platform. */
  engagement: (input: { organizationId: string; platformKey?: string }) => Promise<Engagement>;
  /** A customer user of an organisation, invited and accepted through the API. */
  customerUser: (organization: Organization) => Promise<CustomerUser>;
  /**
   * A support user of their own, for tests that sign out (signing out ends every session of the
   * person, which would cut off other tests signed in as a shared demo user).
   */
  supportUser: () => Promise<Credentials & { name: string }>;
  /**
   * Step 1 through its flow: the customer submits a token file of `companies` sample companies,
   * Sam accepts it. With `window`, step 2 too: Sam proposes a window, the customer accepts it.
   */
  detailsAccepted: (input: { engagement: Engagement; customer: CustomerUser; platformKey?: string; companies?: number; window?: boolean }) => Promise<void>;
  /**
   * An engagement of `organization` at step 5, made through the app as people would: a sandbox
   * client of its own (an admin adds it as the organisation's service target, Sam points the engagement at it),
   * simulated tenants whose credentials the customer uploads as a token file, Sam accepts it,
   * proposes a window the customer accepts, the customer confirms steps 3 and 4 — and then the
   * tenants marked `rotatedAfterExport` are rotated, as the customer's old app would. The sandbox
   * client is on a paid plan unless `plan` says "free" (a free trial holds at most 50 companies).
   * Its syncs take the sandbox's simulated time unless `syncs` says "instant" (complete when
   * queued) or "held" (until released: e2eSandbox().control.releaseSyncs(sandboxClientId)).
   */
  readyForSingleCompanyTest: (input: { organization: Organization; companies: ReadyCompany[]; platformKey?: string; plan?: "free" | "paid"; syncs?: SyncMode }) => Promise<ReadyEngagement>;
};

type Fixtures = {
  /** tRPC as the demo admin. */
  adminApi: TrpcApi;
  /** tRPC as Sam (support). */
  supportApi: TrpcApi;
  factory: Factory;
};

async function apiAs(baseURL: string | undefined, credentials: Credentials): Promise<{ api: TrpcApi; dispose: () => Promise<void> }> {
  const context = await playwrightRequest.newContext({ baseURL, storageState: await sessionOf(credentials) });
  return { api: new TrpcApi(context), dispose: () => context.dispose() };
}

/**
 * The invitation link in the newest outbox message to `email`. The outbox hides one-time links;
 * an admin reveals a pending invitation's (as the "Show invitation link" button does).
 */
export async function invitationLinkFor(adminApi: TrpcApi, email: string): Promise<string> {
  const mail = await adminApi.query<{ id: string; to: string }[]>("outbox.list", { limit: 200 });
  const message = mail.find((m) => m.to === email.toLowerCase());
  if (!message) throw new Error(`No invitation email to ${email} in the outbox`);
  const { text } = await adminApi.mutation<{ text: string }>("outbox.revealLink", { id: message.id });
  const link = text.match(/https?:\/\/\S+\/invite\/\S+/)?.[0];
  if (!link) throw new Error(`No invitation link in the email to ${email}`);
  return link;
}

/** What scripts/e2e-server.mjs publishes for the tests: where its sandbox is, and its control token. */
type E2eServer = { sandboxUrl: string; sandboxAdminToken: string };

/** The e2e server's sandbox: its URL and a client of its test controls (tenants, rotate, faults, clock). */
export function e2eSandbox(): { url: string; control: SandboxControl } {
  const file = path.join(process.cwd(), ".tmp", `e2e-${process.env.E2E_PORT ?? 3100}.json`);
  const server = JSON.parse(fs.readFileSync(file, "utf8")) as E2eServer;
  return { url: server.sandboxUrl, control: createControlClient({ url: server.sandboxUrl, adminToken: server.sandboxAdminToken }) };
}

/** The e2e sandbox's default limit per client (10,000 requests a second), as a target's known per-minute limit. */
export const SANDBOX_CLIENT_REQUESTS_PER_MINUTE = 600_000;
/** The sandbox keeps no daily quota: the target's known quota is far above anything a test spends. */
export const SANDBOX_CLIENT_DAILY_QUOTA = 100_000_000;

/** A company of an engagement made ready for its single-company test: a simulated tenant on the e2e sandbox. */
export type ReadyCompany = {
  name: string;
  /** Records per data type of the tenant (and the file's `records` hint). */
  records?: number;
  externalRef?: string;
  /** The customer's old app refreshed the tokens after the file was exported. */
  rotatedAfterExport?: boolean;
};

/**
 * `sandboxApiKey`: the API key of the engagement's sandbox client, for tests that act on its account through the service API;
 * `sandboxClientId`: that client's id, to change how its syncs go (setSyncs, releaseSyncs);
 * `tenants`: each company's simulated tenant, in file order (to issue it fresh tokens, say).
 */
export type ReadyEngagement = Engagement & { customer: CustomerUser; serviceTargetId: string; sandboxApiKey: string; sandboxClientId: string; tenants: Tenant[] };

export const test = base.extend<Fixtures>({
  adminApi: async ({ baseURL }, use) => {
    const { api, dispose } = await apiAs(baseURL, DEMO.admin);
    await use(api);
    await dispose();
  },
  supportApi: async ({ baseURL }, use) => {
    const { api, dispose } = await apiAs(baseURL, DEMO.sam);
    await use(api);
    await dispose();
  },
  // Nothing is deleted afterwards: the app has no delete for organisations or engagements (by
  // design, they are audited records), and each run starts from a fresh database.
  factory: async ({ adminApi, supportApi, baseURL }, use) => {
    const createCustomer = async (organization: Organization): Promise<CustomerUser> => {
      const suffix = uniqueSuffix();
      const email = `customer-${suffix}@e2e.test`;
      const name = `Customer ${suffix}`;
      const password = `pw-${suffix}-long-enough`;
      await adminApi.mutation("invitations.create", { email, name, role: "customer", organizationId: organization.id });
      const link = await invitationLinkFor(adminApi, email);
      const token = new URL(link).pathname.split("/").pop();
      await adminApi.mutation("invitations.accept", { token, name, password });
      return { email, password, name, organization };
    };
    await use({
      organization: (prefix = "E2E Org") => adminApi.mutation<Organization>("organizations.create", { name: `${prefix} ${uniqueSuffix()}` }),
      engagement: ({ organizationId, platformKey = "qhyg" }) =>
        supportApi.mutation<Engagement>("engagements.create", { organizationId, platformKey }),
      customerUser: createCustomer,
      detailsAccepted: async ({ engagement, customer, platformKey = "qhyg", companies = 2, window = false }) => {
        const context = await playwrightRequest.newContext({ baseURL });
        try {
          await signInWithApi(context, customer);
          const csv = tokenCsv(Array.from({ length: companies }, (_, i) => ({ name: `Company ${i + 1} ${uniqueSuffix()}`, credentials: e2eCredentials(platformKey, i) })));
          const { submissionId } = await submitTokenFile(context, engagement.id, csv);
          await supportApi.mutation("intake.accept", { engagementId: engagement.id, submissionId });
          if (window) {
            const startsAt = new Date(Date.now() + 7 * 86_400_000);
            const endsAt = new Date(startsAt.getTime() + 8 * 3_600_000);
            const { windowIds } = await supportApi.mutation<{ windowIds: string[] }>("windows.propose", { engagementId: engagement.id, windows: [{ startsAt, endsAt }] });
            await new TrpcApi(context).mutation("windows.accept", { engagementId: engagement.id, windowId: windowIds[0] });
          }
        } finally {
          await context.dispose();
        }
      },
      readyForSingleCompanyTest: async ({ organization, companies, platformKey = "qhyg", plan = "paid", syncs = "timed" }) => {
        const sandbox = e2eSandbox();
        const suffix = uniqueSuffix();
        const { apiKey, clientId } = await sandbox.control.createClient({ plan, name: `E2E client ${suffix}`, syncs });
        // The sandbox client is the organisation's own account there; its known limit is the
        // sandbox's (10,000 requests a second per client), not the real service's 1,000 a minute.
        const target = await adminApi.mutation<{ id: string }>("targets.create", {
          name: `E2E sandbox ${suffix}`,
          baseUrl: sandbox.url,
          apiKey,
          kind: "sandbox",
          organizationId: organization.id,
          requestsPerMinute: SANDBOX_CLIENT_REQUESTS_PER_MINUTE,
          dailyQuota: SANDBOX_CLIENT_DAILY_QUOTA,
        });
        const engagement = await supportApi.mutation<Engagement>("engagements.create", { organizationId: organization.id, platformKey });
        await supportApi.mutation("targets.assign", { engagementId: engagement.id, serviceTargetId: target.id });
        const tenants: Tenant[] = [];
        for (const c of companies) tenants.push(await sandbox.control.createTenant(platformKey as never, { name: c.name, ...(c.records === undefined ? {} : { records: c.records }) }));
        const customer = await createCustomer(organization);
        const context = await playwrightRequest.newContext({ baseURL });
        try {
          await signInWithApi(context, customer);
          const csv = tokenCsv(companies.map((c, i) => ({ name: c.name, credentials: tenants[i]!.credentials, records: c.records, externalRef: c.externalRef })));
          const { submissionId } = await submitTokenFile(context, engagement.id, csv);
          await supportApi.mutation("intake.accept", { engagementId: engagement.id, submissionId });
          const startsAt = new Date(Date.now() + 7 * 86_400_000);
          const { windowIds } = await supportApi.mutation<{ windowIds: string[] }>("windows.propose", {
            engagementId: engagement.id,
            windows: [{ startsAt, endsAt: new Date(startsAt.getTime() + 8 * 3_600_000) }],
          });
          const asCustomer = new TrpcApi(context);
          await asCustomer.mutation("windows.accept", { engagementId: engagement.id, windowId: windowIds[0] });
          await asCustomer.mutation("confirmations.callbackUrl", { engagementId: engagement.id });
          await asCustomer.mutation("confirmations.syncingDisabled", { engagementId: engagement.id });
        } finally {
          await context.dispose();
        }
        for (const [i, c] of companies.entries()) if (c.rotatedAfterExport) await sandbox.control.rotate(platformKey as never, tenants[i]!.tenantId);
        return { ...engagement, customer, serviceTargetId: target.id, sandboxApiKey: apiKey, sandboxClientId: clientId, tenants };
      },
      supportUser: async () => {
        const suffix = uniqueSuffix();
        const email = `support-${suffix}@e2e.test`;
        const name = `Support ${suffix}`;
        const password = `pw-${suffix}-long-enough`;
        await adminApi.mutation("invitations.create", { email, name, role: "support" });
        const token = new URL(await invitationLinkFor(adminApi, email)).pathname.split("/").pop();
        await adminApi.mutation("invitations.accept", { token, name, password });
        return { email, password, name };
      },
    });
  },
});

export { expect };
