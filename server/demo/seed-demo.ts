/**
 * Demo data: an admin, two support users, two customer organisations with a user each, and
 * engagements at different steps, every one brought there through the same flows people use (the
 * customer submits a token file, support reviews it, a window is proposed and accepted, the
 * customer confirms), so the timelines, the evidence and the outbox are real. Running it again
 * changes nothing.
 *
 * With a sandbox, the Acme Lending QuickBooks Online engagement (waiting at step 5) holds a token
 * file of 25 real sandbox tenants of mixed volume, two of which were rotated after the file was
 * exported (their tokens in the file are dead): the single-company test and the bulk migration
 * run against it. Without one, the companies' credentials are well-formed stand-ins.
 */
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db/database";
import { engagements, migrationItems } from "@/db/schema";
import { createOrganization } from "@/server/accounts/organizations";
import type { Role } from "@/core/accounts/roles";
import { createUserWithPassword, hasAdmin } from "@/server/accounts/users";
import { changeStatus } from "@/server/engagements/change-status";
import { storeMoveDeadlines } from "@/server/engagements/engagement-repository";
import { createEngagement } from "@/server/engagements/create-engagement";
import {
  acceptSubmission,
  acceptWindow,
  confirmCallbackUrl,
  confirmSyncingDisabled,
  proposeWindow,
  submitIntake,
} from "@/server/engagements/flows";
import type { NotifyDeps } from "@/server/engagements/waiting/notify";
import { tokenFileCsv, type TokenFileCompany } from "@/server/intake";
import { credentialsFor } from "./stand-in-credentials";
import { getManagedPlatform, type PlatformKey } from "@/server/platforms";
import { createControlClient, type SandboxControl, type TenantOptions } from "@/server/sandbox/controls/control-client";
import type { Actor } from "@/core/accounts/actor";
import type { KeyRing } from "@/server/security/secrets";
import { createServiceTarget, ensureBuiltInSandbox } from "@/server/targets/targets";
import { changeTarget } from "@/server/engagements/change-target";
import type { MailConfig } from "@/server/mail/mailer";
import { deliverDueMail } from "@/server/mail/sender";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { createMigrationWorker } from "@/server/migration/migration-worker";
import { confirmHandover } from "@/server/migration/handover/confirm-handover";
import { requestTestRun } from "@/server/migration/test-run/request-test-run";
import demoLogins from "./demo-logins.json";

export type DemoLogin = { role: Role; name: string; email: string; password: string; organization?: string };

/** The demo sign-ins, printed by `npm start` and used by the e2e tests (server/demo/demo-logins.json). */
export const DEMO_LOGINS: readonly DemoLogin[] = demoLogins as DemoLogin[];

export type SandboxAccess = { url: string; adminToken: string };

/**
 * The Acme Lending QuickBooks Online companies: 25, with records per data type from a handful to
 * a few thousand (the sandbox generates that many per data type, and its syncs take longer).
 */
export const ACME_QBO_COMPANIES: readonly { name: string; records: number }[] = [
  ["Harbour Books Ltd", 3],
  ["Northfield Bakery", 8],
  ["Kestrel Design Studio", 15],
  ["Greenway Landscaping", 25],
  ["Blue Fern Dental", 40],
  ["Marlow & Daughters", 60],
  ["Copperleaf Cafe", 90],
  ["Ridgeback Logistics", 120],
  ["Saltmarsh Surveyors", 180],
  ["Oakridge Veterinary", 250],
  ["Tidewater Plumbing", 320],
  ["Lantern Hill Books", 400],
  ["Meadowlark Florists", 500],
  ["Ironbridge Engineering", 650],
  ["Pebble Beach Rentals", 800],
  ["Foxglove Pharmacy", 1000],
  ["Brightwater Consulting", 1200],
  ["Summit Outdoor Supply", 1500],
  ["Wildrose Wedding Co", 1800],
  ["Granite Peak Builders", 2100],
  ["Silverline Media", 2500],
  ["Hollowtree Furniture", 2900],
  ["Cobalt Freight", 3300],
  ["Evergreen Wholesale", 3700],
  ["Atlas Marine Services", 4000],
].map(([name, records]) => ({ name: name as string, records: records as number }));

/**
 * Acme's file gives the old app's counts for every company: Saltmarsh Surveyors' old app holds 32
 * invoices the service does not read back (short), and Ridgeback Logistics' bills fail two of the
 * service's validation rules (one warning more).
 */
function acmeWithCounts(c: { name: string; records: number }): DemoCompany {
  if (c.name === "Saltmarsh Surveyors") return { ...c, oldCounts: oldCountsOf(c.records, { invoices: 32 }) };
  if (c.name === "Ridgeback Logistics") return { ...c, oldCounts: oldCountsOf(c.records), tenant: { validationIssues: { bills: { errors: 2, warnings: 1 } } } };
  return { ...c, oldCounts: oldCountsOf(c.records) };
}

/** The two Acme companies whose customer app refreshed after the file was exported: their file tokens are dead. */
export const ACME_QBO_ROTATED: readonly string[] = ["Copperleaf Cafe", "Wildrose Wedding Co"];

const DAY = 86_400_000;

/** Next `weekday` (0 = Sunday) at `hourUtc`, at least a day ahead. */
function next(weekday: number, hourUtc: number, now = new Date()): Date {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hourUtc));
  d.setUTCDate(d.getUTCDate() + ((weekday - d.getUTCDay() + 7) % 7 || 7));
  if (d.getTime() - now.getTime() < DAY) d.setUTCDate(d.getUTCDate() + 7);
  return d;
}

type Seeding = { database: Database; ring: KeyRing; control?: SandboxControl; sandboxUrl?: string; deps: NotifyDeps };

/** The companies of a demo file: real sandbox tenants when a sandbox is given, stand-ins otherwise. */
/**
 * A demo company: its name and records per data type; `oldCounts`, what the customer's old app
 * counted (the file's `count_` columns); `tenant`, how its simulated tenant differs.
 */
type DemoCompany = { name: string; records: number; oldCounts?: Readonly<Record<string, number>>; tenant?: Pick<TenantOptions, "validationIssues" | "dailyLimitRecords"> };

async function companiesFor(s: Seeding, platformKey: PlatformKey, list: readonly DemoCompany[]) {
  const platform = getManagedPlatform(platformKey)!;
  const tenants: { tenantId: string; name: string }[] = [];
  const companies: TokenFileCompany[] = [];
  for (const [i, c] of list.entries()) {
    const row = { name: c.name, externalRef: `CRM-${1001 + i}`, records: c.records, ...(c.oldCounts ? { oldCounts: c.oldCounts } : {}) };
    if (s.control) {
      const tenant = await s.control.createTenant(platformKey, { name: c.name, records: c.records, ...c.tenant });
      tenants.push({ tenantId: tenant.tenantId, name: c.name });
      companies.push({ ...row, credentials: tenant.credentials });
    } else {
      companies.push({ ...row, credentials: credentialsFor(platform, i) });
    }
  }
  return { tenants, companies };
}

/**
 * The old app's counts of invoices, customers and bills: what the tenant holds, but where `more`
 * says the old app holds more of a data type (records the service does not read back).
 */
function oldCountsOf(records: number, more: Readonly<Record<string, number>> = {}): Record<string, number> {
  return Object.fromEntries(["invoices", "customers", "bills"].map((t) => [t, records + (more[t] ?? 0)]));
}

/** The customer submits the engagement's details and a token file of `companies`. */
/** The OAuth app client id a demo customer gives for a platform in step 1. */
const demoAppClientId = (organizationId: string, platformKey: PlatformKey) => `${organizationId.slice(0, 8)}-${platformKey}-oauth-app`;

async function submit(s: Seeding, customer: Actor, input: { engagementId: string; platformKey: PlatformKey; companies: TokenFileCompany[]; fileName: string }) {
  const { engagementId, platformKey, companies, fileName } = input;
  const result = await submitIntake(s.database, { ring: s.ring, ...s.deps }, customer, {
    engagementId,
    form: {
      clientId: demoAppClientId(customer.organizationId ?? "", platformKey),
      clientSecret: `demo-secret-${crypto.randomUUID()}`,
      contacts: [{ name: customer.name, email: customer.email }],
    },
    file: { name: fileName, bytes: tokenFileCsv({ platformKey, companies }) },
  });
  if (!result.ok) throw new Error(`Demo seed: the ${fileName} file was refused: ${result.check.problems.map((p) => p.message).join("; ")}`);
  return result.submissionId;
}

/** The Bluebird Zoho Books companies: four small ones, the last refreshed by Bluebird's old app after the export. */
export const BLUEBIRD_ZOHO_COMPANIES: readonly DemoCompany[] = [
  // Bluebird Home's organisation ran out of Zoho's shared daily API limit during the fetch: 15 of its 20 read so far.
  { name: "Bluebird Home", records: 20, oldCounts: oldCountsOf(20), tenant: { dailyLimitRecords: 15 } },
  { name: "Bluebird Garden", records: 12, oldCounts: oldCountsOf(12) },
  { name: "Bluebird Café Société", records: 8, oldCounts: oldCountsOf(8) },
  { name: "Bluebird Repairs", records: 5, oldCounts: oldCountsOf(5) },
];
export const BLUEBIRD_ZOHO_ROTATED = "Bluebird Repairs";

/**
 * An engagement taken through all six steps by the real engine in this process — the single-
 * company test and the bulk run make their calls to the sandbox — and handed over: one company
 * refused for its tokens waits for its end customer with its reconnect link, so the demo shows the
 * last mile (the link, the watch, the acknowledgement the customer owes).
 */
async function handedOverWithReconnection(
  s: Seeding,
  p: { support: Actor; customer: Actor; organizationId: string; sandbox: SandboxAccess; mail: { appUrl: string; mail: MailConfig }; eventsUrl: string | null },
): Promise<void> {
  const { database } = s;
  const zoho = await createEngagement(s.database, s.deps, p.support, { organizationId: p.organizationId, platformKey: "rwuv" });
  const file = await companiesFor(s, "rwuv", BLUEBIRD_ZOHO_COMPANIES);
  const submissionId = await submit(s, p.customer, { engagementId: zoho.id, platformKey: "rwuv", companies: file.companies, fileName: "bluebird-zoho-organisations.csv" });
  await acceptSubmission(s.database, s.deps, p.support, { engagementId: zoho.id, submissionId });
  const startsAt = new Date(Date.now() + 60_000);
  const proposed = await proposeWindow(s.database, { sandbox: p.sandbox, ...s.deps }, p.support, { engagementId: zoho.id, windows: [{ startsAt, endsAt: new Date(startsAt.getTime() + 8 * 3_600_000) }] });
  await acceptWindow(s.database, s.deps, p.customer, { engagementId: zoho.id, windowId: proposed.windowIds[0]! });
  await confirmCallbackUrl(s.database, s.deps, p.customer, { engagementId: zoho.id });
  await confirmSyncingDisabled(s.database, s.deps, p.customer, { engagementId: zoho.id });
  const rotated = file.tenants.find((t) => t.name === BLUEBIRD_ZOHO_ROTATED);
  if (rotated && s.control) await s.control.rotate("rwuv", rotated.tenantId);

  // Its watch learns of drops from the sandbox's webhooks, posted to the web app once it runs.
  const worker = createMigrationWorker({ database, ring: s.ring, sandbox: p.sandbox, watch: false, notify: p.mail, ...(p.eventsUrl ? { bulk: { sandboxPublicUrl: p.eventsUrl } } : {}) });
  // The test on a company whose tokens are good (Ferry's own pick, the smallest, is the refreshed one).
  const [pilot] = await database.db
    .select({ id: migrationItems.id })
    .from(migrationItems)
    .where(and(eq(migrationItems.engagementId, zoho.id), eq(migrationItems.name, "Bluebird Garden")))
    .limit(1);
  await requestTestRun(database, p.support, { engagementId: zoho.id, kind: "pilot", itemId: pilot?.id ?? null });
  await worker.runOnce();
  await startBulkRun(database, s.deps, p.support, { engagementId: zoho.id, reason: "The demo runs its bulk migrations at once." });
  await worker.runOnce();
  await confirmHandover(database, p.support, { ...p.mail, purgeAfterDays: 14 }, { engagementId: zoho.id });
}

/**
 * Bluebird's own rehearsal account on the service (a client of its own on the sandbox), whose
 * known limits an admin set: a trial plan's 15 requests a day. Its Shopify migration (two windows
 * proposed, waiting for the customer) and its Wave one (a window proposed, then on hold) both go
 * there, so their Saturday windows would overfill the day's quota: the calendar flags them.
 */
async function bluebirdOnItsAccount(
  s: Seeding,
  p: { priya: Actor; sam: Actor; dan: Actor; organizationId: string; saturdayAfternoon: Date; sandbox?: SandboxAccess },
): Promise<{ shopify: string; wave: string }> {
  const { priya, sam, dan, organizationId } = p;
  const target = await bluebirdRehearsalTarget(s, organizationId);
  const hours = (from: Date, h: number) => new Date(from.getTime() + h * 3_600_000);
  const engagementFor = async (owner: Actor, platformKey: PlatformKey, companies: { name: string; records: number }[], fileName: string) => {
    const { id } = await createEngagement(s.database, s.deps, owner, { organizationId, platformKey });
    if (target) await changeTarget(s.database, s.deps, owner, { engagementId: id, serviceTargetId: target });
    const file = await companiesFor(s, platformKey, companies);
    const submissionId = await submit(s, dan, { engagementId: id, platformKey, companies: file.companies, fileName });
    await acceptSubmission(s.database, s.deps, owner, { engagementId: id, submissionId });
    return id;
  };

  // Shopify: Saturday afternoon (the day of Acme's night window) or Sunday morning.
  const shopify = await engagementFor(priya, "fztf", [{ name: "Bluebird Outdoor", records: 300 }, { name: "Bluebird Kids", records: 80 }], "bluebird-shops.csv");
  const sunday = hours(p.saturdayAfternoon, 16);
  await proposeWindow(s.database, { sandbox: p.sandbox, ...s.deps }, priya, {
    engagementId: shopify,
    windows: [
      { startsAt: p.saturdayAfternoon, endsAt: hours(p.saturdayAfternoon, 4) },
      { startsAt: sunday, endsAt: hours(sunday, 4) },
    ],
  });

  // Wave: a Saturday window meeting Shopify's, then on hold while the customer re-registers its app.
  const wave = await engagementFor(sam, "pbtz", [{ name: "Bluebird Wholesale", records: 200 }], "wave-businesses.csv");
  const evening = hours(p.saturdayAfternoon, 2);
  await proposeWindow(s.database, { sandbox: p.sandbox, ...s.deps }, sam, { engagementId: wave, windows: [{ startsAt: evening, endsAt: hours(evening, 4) }] });
  await changeStatus(s.database, s.deps, sam, { engagementId: wave, status: "on_hold", reasonCode: "customer_it_change", reason: "Customer is re-registering its Wave app." });
  return { shopify, wave };
}

/** Bluebird's rehearsal account: a client of its own on the sandbox, known limit 15 requests a day (none without a sandbox). */
async function bluebirdRehearsalTarget(s: Seeding, organizationId: string): Promise<string | null> {
  if (!s.control || !s.sandboxUrl) return null;
  const { apiKey } = await s.control.createClient({ plan: "paid", name: "Bluebird rehearsal", oneTimeLinkUrls: true });
  const target = await createServiceTarget(s.database, s.ring, null, {
    name: "Bluebird rehearsal account",
    baseUrl: s.sandboxUrl,
    apiKey,
    kind: "sandbox",
    organizationId,
    dailyQuota: BLUEBIRD_DAILY_QUOTA,
  });
  return target.id;
}

/** The daily quota an admin set on Bluebird's rehearsal account (a trial plan's). */
export const BLUEBIRD_DAILY_QUOTA = 15;

/**
 * Seeds the demo data unless an admin already exists. First it makes sure the built-in sandbox
 * is registered (the one target every organisation may use): a sandbox target already at
 * `sandboxUrl` (or the sandbox's URL) is marked built-in, or, with sandbox access, one is added
 * with a client of its own. With sandbox access the token files are built from real sandbox tenants.
 */
/** Moves the start of each engagement's current move (and its last change) back by `hours`. */
async function startedEarlier(database: Database, moves: readonly { engagementId: string; hours: number }[]): Promise<void> {
  for (const m of moves) {
    const at = new Date(Date.now() - m.hours * 3_600_000);
    await database.db.update(engagements).set({ waitingSince: at, updatedAt: at }).where(eq(engagements.id, m.engagementId));
    await database.transaction((tx) => storeMoveDeadlines(tx, m.engagementId), { isolation: "read committed" });
  }
}

export async function seedDemo(database: Database, options: { ring: KeyRing; sandbox?: SandboxAccess; sandboxUrl?: string; appUrl?: string }): Promise<{ seeded: boolean }> {
  const sandboxUrl = options.sandbox?.url ?? options.sandboxUrl;
  /** The built-in sandbox's client, when it is made here (its customers' OAuth apps are set on it). */
  let builtInClientId: string | null = null;
  if (sandboxUrl) {
    const access = options.sandbox;
    await ensureBuiltInSandbox(database, options.ring, {
      url: sandboxUrl,
      newApiKey: access
        ? async () => {
            const client = await createControlClient(access).createClient({ plan: "paid", name: "Ferry demo", oneTimeLinkUrls: true });
            builtInClientId = client.clientId;
            return client.apiKey;
          }
        : undefined,
    });
  }
  if (await hasAdmin(database)) return { seeded: false };

  const orgIds = new Map<string, string>();
  const actors = new Map<string, Actor>();
  const system: Actor = { id: "system", email: "", name: "Demo seed", role: "admin", organizationId: null };
  for (const login of DEMO_LOGINS) {
    let organizationId: string | null = null;
    if (login.organization) {
      organizationId = orgIds.get(login.organization) ?? (await createOrganization(database, system, { name: login.organization })).id;
      orgIds.set(login.organization, organizationId);
    }
    actors.set(login.email, await createUserWithPassword(database, { email: login.email, name: login.name, role: login.role, organizationId, password: login.password }));
  }

  // The demo's mail lands in the outbox quietly (never SMTP: the addresses are not real).
  const mail = { appUrl: options.appUrl ?? "http://localhost:3000", mail: { from: "Ferry <ferry@localhost>", keyRing: options.ring, log: () => {} } };
  const s: Seeding = {
    database,
    ring: options.ring,
    control: options.sandbox ? createControlClient(options.sandbox) : undefined,
    sandboxUrl: options.sandbox?.url,
    deps: { notify: mail },
  };
  const sam = actors.get("sam@ferry.test")!;
  const priya = actors.get("priya@ferry.test")!;
  const carol = actors.get("carol@acme.test")!;
  const dan = actors.get("dan@bluebird.test")!;
  const acme = orgIds.get("Acme Lending")!;
  const bluebird = orgIds.get("Bluebird Commerce")!;
  const open = async (owner: Actor, organizationId: string, platformKey: PlatformKey) => {
    const created = await createEngagement(s.database, s.deps, owner, { organizationId, platformKey });
    return created.id;
  };

  // Acme on QuickBooks Online: steps 1–4 done, waiting for support's single-company test.
  const qbo = await open(sam, acme, "qhyg");
  const acmeFile = await companiesFor(s, "qhyg", ACME_QBO_COMPANIES.map(acmeWithCounts));
  const qboSubmission = await submit(s, carol, { engagementId: qbo, platformKey: "qhyg", companies: acmeFile.companies, fileName: "acme-quickbooks-companies.csv" });
  await acceptSubmission(s.database, s.deps, sam, { engagementId: qbo, submissionId: qboSubmission });
  // The demo's weekend: Saturday from 14:00 UTC (at least a day ahead); Acme's window is that night.
  const saturdayAfternoon = next(6, 14);
  const saturday = new Date(saturdayAfternoon.getTime() + 8 * 3_600_000);
  const proposed = await proposeWindow(s.database, { sandbox: options.sandbox, ...s.deps }, sam, {
    engagementId: qbo,
    windows: [{ startsAt: saturday, endsAt: new Date(saturday.getTime() + 8 * 3_600_000) }],
    note: "Saturday night, when Acme's books are closed.",
  });
  await acceptWindow(s.database, s.deps, carol, { engagementId: qbo, windowId: proposed.windowIds[0]! });
  await confirmCallbackUrl(s.database, s.deps, carol, { engagementId: qbo });
  await confirmSyncingDisabled(s.database, s.deps, carol, { engagementId: qbo });
  // After the export, Acme's old app refreshed two companies anyway: their tokens in the file are dead.
  for (const name of ACME_QBO_ROTATED) {
    const tenant = acmeFile.tenants.find((t) => t.name === name);
    if (tenant && s.control) await s.control.rotate("qhyg", tenant.tenantId);
  }

  // Acme on FreeAgent: details submitted, waiting for support's review.
  const freeagent = await open(priya, acme, "fbrh");
  const faFile = await companiesFor(s, "fbrh", [
    { name: "Kestrel Design Studio", records: 40 },
    { name: "Zoë Design Studio", records: 25 },
    { name: "Northfield Bakery", records: 120 },
  ]);
  await submit(s, carol, { engagementId: freeagent, platformKey: "fbrh", companies: faFile.companies, fileName: "freeagent-companies.csv" });
  // Acme's own FreeAgent app, as the service uses it on the built-in sandbox: it lists the old app's
  // redirect only, so step 3's round trip is refused until Carol adds the callback URL in the console.
  if (s.control && builtInClientId) {
    await s.control.setOAuthApp(builtInClientId, "fbrh", {
      appClientId: demoAppClientId(acme, "fbrh"),
      name: "Acme Lending FreeAgent app",
      redirectUris: ["https://lending.acme.example/oauth/freeagent/callback"],
    });
  }

  // Bluebird on Shopify (windows waiting for the customer) and on Wave (on hold), both on Bluebird's own account.
  const { shopify } = await bluebirdOnItsAccount(s, { priya, sam, dan, organizationId: bluebird, saturdayAfternoon, sandbox: options.sandbox });

  // Bluebird on Zoho Books: migrated and handed over, one company still waiting for its end customer.
  if (options.sandbox) await handedOverWithReconnection(s, { support: sam, customer: dan, organizationId: bluebird, sandbox: options.sandbox, mail, eventsUrl: options.appUrl ?? null });

  // A week in progress: the open moves began before the seed ran, so the portfolio's clocks show
  // what a support team's week looks like (Priya's review of FreeAgent is a day late, Bluebird has
  // had the Shopify windows for two and a half of its three days, the QuickBooks test is new).
  await startedEarlier(database, [
    { engagementId: freeagent, hours: 30 },
    { engagementId: shopify, hours: 60 },
  ]);

  // The demo's mail is delivered here, to the outbox alone: a worker with SMTP_URL must not send it.
  await deliverDueMail({ database, mail: mail.mail });
  return { seeded: true };
}
