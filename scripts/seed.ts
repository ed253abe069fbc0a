/**
 * `npm run db:seed`: migrates, registers the built-in sandbox at SANDBOX_URL and seeds the demo data
 * (idempotent). With SANDBOX_ADMIN_TOKEN the demo's token files hold real sandbox tenants.
 */
import { env } from "@/server/env";
import { appKeyRing } from "@/server/security/keyring";
import { openDb } from "@/db/client";
import { seedDemo } from "@/server/demo/seed-demo";

async function main() {
  const e = env();
  const db = openDb(e.DATABASE_FILE);
  const sandbox = e.SANDBOX_ADMIN_TOKEN ? { url: e.SANDBOX_URL, adminToken: e.SANDBOX_ADMIN_TOKEN } : undefined;
  const { seeded } = await seedDemo(db, { ring: appKeyRing(), sandbox, sandboxUrl: e.SANDBOX_URL, appUrl: e.NEXTAUTH_URL });
  db.$client.close();
  console.log(seeded ? `Demo data seeded into ${e.DATABASE_FILE}` : `Demo data already present in ${e.DATABASE_FILE}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
