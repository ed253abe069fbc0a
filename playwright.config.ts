import { defineConfig, devices } from "@playwright/test";
// CommonJS helper shared with scripts/test.mjs (which also sets FERRY_BROWSER).
import browserFinder from "@/scripts/browser.cjs";

const PORT = Number(process.env.E2E_PORT ?? 3100);
const executablePath = browserFinder.detectBrowser() ?? undefined;

export default defineConfig({
  testDir: "e2e",
  fullyParallel: true,
  workers: process.env.CI ? 2 : undefined,
  retries: 0,
  forbidOnly: !!process.env.CI,
  // Generous: CI shares a 2-core machine, and a journey's page loads stretch under load. A test that
  // is wrong still fails, only later.
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [["list"], ["json"]] : [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: { ...devices["Desktop Chrome"], launchOptions: { executablePath } },
      testIgnore: "supervision.spec.ts",
    },
    {
      // `npm start` as people run it, a whole Ferry beside the e2e server: once the journeys have
      // ended, so it neither slows them nor is slowed by them (skipped when a journey failed).
      name: "processes",
      testMatch: "supervision.spec.ts",
      dependencies: ["chromium"],
    },
  ],
  webServer: {
    command: "node scripts/e2e-server.mjs",
    url: `http://127.0.0.1:${PORT}/api/auth/csrf`,
    reuseExistingServer: !process.env.CI,
    timeout: 120_000,
    env: { E2E_PORT: String(PORT) },
    // The app logs outgoing mail on stdout (the embedded outbox); only errors belong in the report.
    stdout: "ignore",
    stderr: "pipe",
    // SIGTERM to the server's process group, so the sandbox and next-server stop with it.
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});
