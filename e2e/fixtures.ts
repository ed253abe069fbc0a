/**
 * Playwright fixtures: sign-in through next-auth's API (never the form, except in the sign-in
 * tests), a small tRPC-over-HTTP client, and factories that create uniquely named data so specs
 * share one database without depending on each other or on order.
 */
import fs from "node:fs";
import path from "node:path";
import demoLogins from "../server/demo/demo-logins.json";
import { test as base, expect, request as playwrightRequest, type APIRequestContext, type Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import { openDb } from "@/db/client";
import { users } from "@/db/schema";
import { readyEngagement, type ReadyCompany, type ReadyEngagement } from "@/server/migration/testing/ready-engagement";
import { createControlClient } from "@/server/sandbox/controls/control-client";
import { keyRingFrom } from "@/server/security/secrets";

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

/** Signs the page in as someone (via the API) without touching the sign-in form. */
export async function signIn(page: Page, credentials: Credentials): Promise<void> {
  await signInWithApi(page.request, credentials);
}

type TrpcErrorBody = { error?: { json?: { message?: string } } };

/** tRPC over HTTP with superjson's envelope; enough for factories (inputs have no Dates). */
export class TrpcApi {
  constructor(readonly request: APIRequestContext) {}

  async query<T>(path: string, input?: unknown): Promise<T> {
    const qs = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
    return this.unwrap<T>(path, await this.request.get(`/api/trpc/${path}${qs}`));
  }

  async mutation<T>(path: string, input: unknown): Promise<T> {
    return this.unwrap<T>(path, await this.request.post(`/api/trpc/${path}`, { data: { json: input } }));
  }

  private async unwrap<T>(path: string, response: Awaited<ReturnType<APIRequestContext["get"]>>): Promise<T> {
    const body = (await response.json()) as { result?: { data?: { json?: T } } } & TrpcErrorBody;
    if (!response.ok() || !body.result?.data) {
      throw new Error(`tRPC ${path} failed (${response.status()}): ${body.error?.json?.message ?? "no message"}`);
    }
    return body.result.data.json as T;
  }
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
};

type Fixtures = {
  /** tRPC as the demo admin. */
  adminApi: TrpcApi;
  /** tRPC as Sam (support). */
  supportApi: TrpcApi;
  factory: Factory;
};

async function apiAs(baseURL: string | undefined, credentials: Credentials): Promise<{ api: TrpcApi; dispose: () => Promise<void> }> {
  const context = await playwrightRequest.newContext({ baseURL });
  await signInWithApi(context, credentials);
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

/** What scripts/e2e-server.mjs publishes for fixtures that set data up beside the app. */
type E2eServer = { databaseFile: string; encryptionKey: string; sandboxUrl: string; sandboxAdminToken: string };

/**
 * An engagement of `organizationId` at step 5 with these companies (simulated tenants on the e2e
 * server's sandbox, some rotated after the export), made by the one set-up helper the engine's
 * tests use (server/migration/testing/ready-engagement.ts) on the e2e server's database.
 */
export async function readyForSingleCompanyTest(params: { organizationId: string; companies: ReadyCompany[] }): Promise<ReadyEngagement> {
  const file = path.join(process.cwd(), ".tmp", `e2e-${process.env.E2E_PORT ?? 3100}.json`);
  const server = JSON.parse(fs.readFileSync(file, "utf8")) as E2eServer;
  const db = openDb(server.databaseFile, { migrate: false });
  try {
    const sam = db.select().from(users).where(eq(users.email, DEMO.sam.email)).get();
    if (!sam) throw new Error("The demo support user is missing from the e2e database");
    return await readyEngagement(db, {
      ring: keyRingFrom(server.encryptionKey),
      support: { id: sam.id, email: sam.email, name: sam.name, role: sam.role, organizationId: null },
      sandbox: { url: server.sandboxUrl, control: createControlClient({ url: server.sandboxUrl, adminToken: server.sandboxAdminToken }) },
      organizationId: params.organizationId,
      companies: params.companies,
    });
  } finally {
    db.$client.close();
  }
}

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
  factory: async ({ adminApi, supportApi }, use) => {
    await use({
      organization: (prefix = "E2E Org") => adminApi.mutation<Organization>("organizations.create", { name: `${prefix} ${uniqueSuffix()}` }),
      engagement: ({ organizationId, platformKey = "qhyg" }) =>
        supportApi.mutation<Engagement>("engagements.create", { organizationId, platformKey }),
      customerUser: async (organization) => {
        const suffix = uniqueSuffix();
        const email = `customer-${suffix}@e2e.test`;
        const name = `Customer ${suffix}`;
        const password = `pw-${suffix}-long-enough`;
        await adminApi.mutation("invitations.create", { email, name, role: "customer", organizationId: organization.id });
        const link = await invitationLinkFor(adminApi, email);
        const token = new URL(link).pathname.split("/").pop();
        await adminApi.mutation("invitations.accept", { token, name, password });
        return { email, password, name, organization };
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
