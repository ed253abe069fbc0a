/**
 * What the app needs beyond the database, fixed per process: built once from the validated
 * environment for the web app (tests and the worker pass their own).
 */
import { env } from "@/server/env";
import type { MailConfig } from "@/server/mail/mailer";
import { appKeyRing } from "@/server/security/keyring";
import type { KeyRing } from "@/server/security/secrets";

/** What the app needs beyond the database, fixed per process (tests pass their own). */
export type AppConfig = {
  appUrl: string;
  mail: MailConfig;
  /** Encryption keys for secrets at rest. */
  keyRing: KeyRing;
  /** Days after a handover report or a cancellation before credentials are purged automatically. */
  purgeAfterDays: number;
  /** The built-in sandbox's controls, when this process may use them (its configured limits for estimates). */
  sandbox?: { url: string; adminToken: string };
  /** Step 3's round trip asks the service about an open check at most this often (default 3 s; tests set 0). */
  callbackCheckRefreshMs?: number;
};

/** The app's fixed configuration, from the validated environment. */
export function appConfig(): AppConfig {
  const e = env();
  return {
    appUrl: e.NEXTAUTH_URL ?? "http://localhost:3000",
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, keyRing: appKeyRing() },
    keyRing: appKeyRing(),
    purgeAfterDays: e.FERRY_PURGE_AFTER_DAYS,
    sandbox: e.SANDBOX_ADMIN_TOKEN ? { url: e.SANDBOX_URL, adminToken: e.SANDBOX_ADMIN_TOKEN } : undefined,
  };
}
