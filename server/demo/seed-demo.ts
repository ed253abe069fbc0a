/**
 * Demo data: an admin, two support users, two customer organisations with a user each, and
 * engagements at different steps, made through the same domain functions the app uses (so the
 * audit timelines are real). Running it again changes nothing.
 */
import type { Db } from "@/db/client";
import { createOrganization } from "@/server/accounts/organizations";
import type { Role } from "@/server/accounts/roles";
import { createUserWithPassword, hasAdmin } from "@/server/accounts/users";
import { actOnStep } from "@/server/engagements/act-on-step";
import { changeStatus } from "@/server/engagements/change-status";
import { createEngagement } from "@/server/engagements/create-engagement";
import { createControlClient } from "@/server/sandbox/controls/control-client";
import type { Actor } from "@/server/security/actor";
import type { KeyRing } from "@/server/security/secrets";
import { createServiceTarget, findSandboxTarget } from "@/server/targets/targets";
import demoLogins from "./demo-logins.json";

export type DemoLogin = { role: Role; name: string; email: string; password: string; organization?: string };

/** The demo sign-ins, printed by `npm start` and used by the e2e tests (server/demo/demo-logins.json). */
export const DEMO_LOGINS: readonly DemoLogin[] = demoLogins as DemoLogin[];

export type SandboxAccess = { url: string; adminToken: string };

/**
 * Seeds the demo data unless an admin already exists. With sandbox access it also registers the
 * sandbox as the default service target, with a client of its own.
 */
export async function seedDemo(db: Db, options: { ring: KeyRing; sandbox?: SandboxAccess }): Promise<{ seeded: boolean }> {
  if (options.sandbox && !findSandboxTarget(db)) {
    const { apiKey } = await createControlClient(options.sandbox).createClient({ plan: "paid", name: "Ferry demo" });
    createServiceTarget(db, options.ring, null, { name: "Ferry sandbox", baseUrl: options.sandbox.url, apiKey, kind: "sandbox" });
  }
  if (hasAdmin(db)) return { seeded: false };

  const orgIds = new Map<string, string>();
  const actors = new Map<string, Actor>();
  const system: Actor = { id: "system", email: "", name: "Demo seed", role: "admin", organizationId: null };
  for (const login of DEMO_LOGINS) {
    let organizationId: string | null = null;
    if (login.organization) {
      organizationId = orgIds.get(login.organization) ?? createOrganization(db, system, { name: login.organization }).id;
      orgIds.set(login.organization, organizationId);
    }
    actors.set(login.email, await createUserWithPassword(db, { email: login.email, name: login.name, role: login.role, organizationId, password: login.password }));
  }

  const sam = actors.get("sam@ferry.test")!;
  const priya = actors.get("priya@ferry.test")!;
  const carol = actors.get("carol@acme.test")!;
  const acme = orgIds.get("Acme Lending")!;
  const bluebird = orgIds.get("Bluebird Commerce")!;

  // Acme on QuickBooks Online: ready for the single-company test.
  const qbo = createEngagement(db, sam, { organizationId: acme, platformKey: "qhyg" });
  actOnStep(db, carol, { engagementId: qbo.id, step: 1, action: "start" });
  actOnStep(db, sam, { engagementId: qbo.id, step: 1, action: "complete", note: "Token file for 120 companies validated, no blocking errors." });
  actOnStep(db, sam, { engagementId: qbo.id, step: 2, action: "start" });
  actOnStep(db, sam, { engagementId: qbo.id, step: 2, action: "complete", note: "Carol accepted the window by email." });
  actOnStep(db, carol, { engagementId: qbo.id, step: 3, action: "complete" });
  actOnStep(db, carol, { engagementId: qbo.id, step: 4, action: "complete" });

  // Acme on FreeAgent: just opened, details submitted.
  const freeagent = createEngagement(db, priya, { organizationId: acme, platformKey: "fbrh" });
  actOnStep(db, carol, { engagementId: freeagent.id, step: 1, action: "start" });

  // Bluebird on Shopify: a window proposed, waiting for the customer.
  const shopify = createEngagement(db, priya, { organizationId: bluebird, platformKey: "fztf" });
  actOnStep(db, priya, { engagementId: shopify.id, step: 1, action: "complete", note: "Details received by email." });
  actOnStep(db, priya, { engagementId: shopify.id, step: 2, action: "start" });

  // Bluebird on Wave: on hold while the customer sorts out its OAuth app.
  const wave = createEngagement(db, sam, { organizationId: bluebird, platformKey: "pbtz" });
  actOnStep(db, sam, { engagementId: wave.id, step: 1, action: "complete", note: "Details accepted." });
  changeStatus(db, sam, { engagementId: wave.id, status: "on_hold", reason: "Customer is re-registering its Wave app." });

  return { seeded: true };
}
