import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    environment: "node",
    include: ["core/**/*.test.ts", "server/**/*.test.ts", "db/**/*.test.ts", "app/**/*.test.ts", "scripts/**/*.test.ts", "deploy/**/*.test.ts", "eslint-rules/**/*.test.ts"],
    // Files about PostgreSQL alone run in the PostgreSQL pass only (scripts/database-passes.mjs).
    exclude: ["e2e/**", "node_modules/**", "**/*-pg.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every test file opens its own temporary SQLite files and servers on random ports.
    pool: "forks",
    // Three files at once on two cores: many tests wait on a sandbox, a child process or a lease
    // for part of their time (Vitest's default would be one file at a time here).
    maxWorkers: 3,
    // Which tests the PostgreSQL pass runs again (vitest.pg.config.ts, scripts/database-passes.mjs).
    tags: [
      {
        name: "both-databases",
        description: "Runs on SQLite and again on PostgreSQL: what can differ between them (repositories, claims, leases, races, migrations, the rate budget's store).",
      },
      { name: "postgresql", description: "About PostgreSQL alone (a *-pg.test.ts file): runs in the PostgreSQL pass only." },
    ],
    // A migrated template database and the seeded people's password hash, made once per run.
    globalSetup: ["server/testing/global-setup.ts"],
  },
});
