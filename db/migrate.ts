/** `npm run db:migrate`: applies committed migrations to DATABASE_FILE (default data/ferry.db). */
import { openDb } from "./client";

const file = process.env.DATABASE_FILE ?? "data/ferry.db";
openDb(file).$client.close();
console.log(`Database ready: ${file}`);
