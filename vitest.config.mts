import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    environment: "node",
    include: ["core/**/*.test.ts", "server/**/*.test.ts", "db/**/*.test.ts", "app/**/*.test.ts", "scripts/**/*.test.ts", "deploy/**/*.test.ts"],
    exclude: ["e2e/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every test file opens its own temporary SQLite files and servers on random ports.
    pool: "forks",
  },
});
