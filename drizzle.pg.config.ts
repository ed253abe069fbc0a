import { defineConfig } from "drizzle-kit";

// PostgreSQL's migrations (`npm run db:generate:pg`); drizzle.config.ts is SQLite's.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema.pg.ts",
  out: "./db/migrations-pg",
  dbCredentials: { url: process.env.DATABASE_URL ?? "postgres://localhost:5432/ferry" },
});
