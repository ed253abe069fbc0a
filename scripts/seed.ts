/**
 * `npm run db:seed`: migrates the app database (PostgreSQL when DATABASE_URL says so, else SQLite
 * in DATABASE_FILE), registers the built-in sandbox at SANDBOX_URL and seeds the demo data
 * (idempotent). With SANDBOX_ADMIN_TOKEN the demo's token files hold real sandbox tenants.
 */
import { env } from "@/server/env";
import { appKeyRing } from "@/server/security/keyring";
import { databaseLabel, readyDatabase } from "@/db/ready";
import { seedDemo } from "@/server/demo/seed-demo";

async function main() {
  const e = env();
  const database = await readyDatabase();
  const sandbox = e.SANDBOX_ADMIN_TOKEN ? { url: e.SANDBOX_URL, adminToken: e.SANDBOX_ADMIN_TOKEN } : undefined;
  try {
    const { seeded } = await seedDemo(database, { ring: appKeyRing(), sandbox, sandboxUrl: e.SANDBOX_URL, appUrl: e.NEXTAUTH_URL });
    console.log(seeded ? `Demo data seeded into ${databaseLabel(e)}` : `Demo data already present in ${databaseLabel(e)}`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
