/**
 * A fresh, migrated PostgreSQL database of its own on a server, for a bench: created under a random
 * name, opened, and dropped when closed.
 */
import crypto from "node:crypto";
import { Client } from "pg";
import { openPostgres, type Database } from "@/db/database";
import { migratePostgres } from "@/db/migrate-pg";

export async function freshPostgresDatabase(server: string, options: { max: number }): Promise<{ url: string; database: Database; close: () => Promise<void> }> {
  const name = `ferry_bench_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  await migratePostgres(url.toString());
  const database = openPostgres(url.toString(), { max: options.max });
  return {
    url: url.toString(),
    database,
    close: async () => {
      await database.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    },
  };
}
