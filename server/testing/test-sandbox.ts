/**
 * A sandbox for tests: a real server on a random port with a temporary SQLite file, and its
 * controls. Used by the sandbox's own tests, the app's migration tests and Playwright.
 *
 *   const sandbox = await startTestSandbox();
 *   const { apiKey } = await sandbox.control.createClient({ plan: "free" });
 *   ...
 *   await sandbox.close();
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createControlClient, type SandboxControl } from "../sandbox/controls/control-client";
import { createSandbox } from "../sandbox/server";

export { basicAuth, createControlClient, SandboxControlError } from "../sandbox/controls/control-client";
export type {
  ClockState,
  ConnectionJson,
  CredentialKind,
  DeauthorizeResult,
  DropReason,
  IssuedCredentials,
  LinkResult,
  SandboxControl,
  Tenant,
  TenantOptions,
  WebhookConsumerState,
  WebhookDeliveryState,
} from "../sandbox/controls/control-client";

export type TestSandbox = {
  url: string;
  adminToken: string;
  /** The SQLite file (for restart tests: pass it to `startTestSandbox({ dbFile })` again). */
  dbFile: string;
  control: SandboxControl;
  /** Stops the server; removes the temporary folder unless the file was given. */
  close(): Promise<void>;
};

/** Starts a sandbox on port 0 with a fresh temporary database (or the given file). */
export async function startTestSandbox(
  options: {
    dbFile?: string;
    adminToken?: string;
    basePath?: string;
    /** How often the webhook dispatcher runs (real ms); default 250. */
    webhookTickMs?: number;
    /** Receives the server's log lines (unexpected errors); silent by default. */
    log?: (line: string) => void;
  } = {},
): Promise<TestSandbox> {
  const tempDir = options.dbFile ? null : fs.mkdtempSync(path.join(os.tmpdir(), "ferry-sandbox-"));
  const dbFile = options.dbFile ?? path.join(tempDir ?? "", "sandbox.db");
  const sandbox = await createSandbox({
    dbFile,
    port: 0,
    adminToken: options.adminToken ?? "test-admin-token",
    basePath: options.basePath,
    webhookTickMs: options.webhookTickMs,
    log: options.log,
  });
  return {
    url: sandbox.url,
    adminToken: sandbox.adminToken,
    dbFile,
    control: createControlClient({ url: sandbox.url, adminToken: sandbox.adminToken }),
    close: async () => {
      await sandbox.close();
      if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
    },
  };
}
