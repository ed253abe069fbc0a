/**
 * Which database Ferry's app data lives in: PostgreSQL when DATABASE_URL is a postgres:// (or
 * postgresql://) URL, else SQLite in DATABASE_FILE, the embedded default. Read from the
 * environment each time, so a process and the tests that set the variable agree.
 */
export type DatabaseDialect = "sqlite" | "postgresql";

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** The dialect the environment selects; a DATABASE_URL of any other kind is refused by name. */
export function databaseDialect(env: Readonly<Record<string, string | undefined>> = process.env): DatabaseDialect {
  const url = env.DATABASE_URL?.trim();
  if (!url) return "sqlite";
  if (POSTGRES_URL.test(url)) return "postgresql";
  throw new Error(
    "DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host:5432/database); leave it unset to use SQLite (DATABASE_FILE).",
  );
}
