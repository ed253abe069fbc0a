/**
 * The environment, validated once. A bad value fails start-up with a message naming the variable.
 * `npm start` fills the secrets in for the embedded default (scripts/start.mjs); production sets them.
 */
import { z } from "zod";

const encryptionKey = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=$/, "must be '<key id>:<32 bytes in base64>'");

/** An optional whole number of milliseconds within bounds (unset or blank: undefined, the code's default). */
function milliseconds(bounds: { min: number; max: number }) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      const s = (v ?? "").trim();
      if (s === "") return undefined;
      if (/^\d{1,9}$/.test(s) && Number(s) >= bounds.min && Number(s) <= bounds.max) return Number(s);
      ctx.addIssue({ code: "custom", message: `must be a whole number of milliseconds from ${bounds.min.toLocaleString("en-GB")} to ${bounds.max.toLocaleString("en-GB")}` });
      return z.NEVER;
    });
}

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_FILE: z.string().min(1).default("data/ferry.db"),
  /**
   * PostgreSQL instead of SQLite (postgres://user:password@host:5432/database), for Ferry on more
   * than one machine; unset or blank: SQLite in DATABASE_FILE. db/dialect.ts reads it too.
   */
  DATABASE_URL: z
    .string()
    .optional()
    .transform((v) => v?.trim() || undefined)
    .refine((v) => v === undefined || /^postgres(ql)?:\/\/\S+$/i.test(v), "must be a PostgreSQL URL (postgres://user:password@host:5432/database), or unset to use SQLite (DATABASE_FILE)"),
  NEXTAUTH_SECRET: z.string().min(16, "must be at least 16 characters"),
  NEXTAUTH_URL: z.url("must be the app's public URL, e.g. http://localhost:3000").optional(),
  /** The current key (used to encrypt), as `<id>:<base64 32 bytes>`. */
  FERRY_ENCRYPTION_KEY: encryptionKey,
  /** Retired keys still able to decrypt, comma-separated, same format. */
  FERRY_ENCRYPTION_OLD_KEYS: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(",").map((s) => s.trim()).filter(Boolean) : []))
    .pipe(z.array(encryptionKey)),
  /** smtp(s)://user:pass@host:port — when unset, mail only lands in the in-app outbox. */
  SMTP_URL: z.url("must be an smtp:// or smtps:// URL").optional(),
  MAIL_FROM: z.string().min(3).default("Ferry <ferry@localhost>"),
  /** The built-in sandbox: Ferry's default service target. */
  SANDBOX_URL: z.url("must be the sandbox's base URL, e.g. http://127.0.0.1:4010").default("http://127.0.0.1:4010"),
  SANDBOX_ADMIN_TOKEN: z.string().optional(),
  /**
   * `allow`: service targets may be on private network addresses (10/8, 172.16/12, 192.168/16,
   * fc00::/7, 100.64/10), for a service reached inside a private network; unset or `refuse`: only
   * public addresses and loopback. Link-local and metadata addresses are refused either way.
   * server/targets/network.ts reads it.
   */
  FERRY_PRIVATE_TARGETS: z.enum(["allow", "refuse"], "must be allow or refuse (or unset)").optional(),
  /**
   * Ferry's public base URL as the service reaches it (e.g. https://ferry.example.com behind a reverse
   * proxy): the service's webhooks are posted to {FERRY_PUBLIC_URL}/api/targets/{id}/events. Unset: no
   * webhook consumer is registered (a target may name its own) and the watch polls, as before.
   */
  FERRY_PUBLIC_URL: z.url("must be Ferry's public base URL, e.g. https://ferry.example.com").optional(),
  /**
   * The machine a worker runs on, as the service sees its address: workers with the same id share
   * one per-address rate limit per target (default: the host name).
   */
  FERRY_MACHINE_ID: z.string().trim().min(1).max(200).optional(),
  /**
   * Days after a handover report is produced (and not acknowledged), or after an engagement is
   * cancelled, before the worker purges its credentials by itself (0–3650; default 14).
   */
  FERRY_PURGE_AFTER_DAYS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const s = (v ?? "").trim();
      if (s === "") return 14;
      if (/^\d{1,4}$/.test(s) && Number(s) <= 3650) return Number(s);
      ctx.addIssue({ code: "custom", message: "must be a whole number of days from 0 to 3650" });
      return z.NEVER;
    }),
  /**
   * The worker's lease on the work it claims (1,000–600,000 ms; default 4,000): a killed worker's
   * work is taken over once it has run out. Its idle look for work (100–60,000 ms; default 1,000).
   * Tests of worker processes set them short; production has no reason to.
   */
  FERRY_WORKER_LEASE_MS: milliseconds({ min: 1_000, max: 600_000 }),
  FERRY_WORKER_IDLE_MS: milliseconds({ min: 100, max: 60_000 }),
  /**
   * How often the worker looks for queued mail to deliver (100–600,000 ms; default 2,000). The e2e
   * server sets it short, so journeys that read the outbox find their mail delivered at once.
   */
  FERRY_MAIL_EVERY_MS: milliseconds({ min: 100, max: 600_000 }),
  /** How often the worker looks for reminders and digests to send (default 5 minutes). */
  FERRY_REMINDERS_EVERY_MS: milliseconds({ min: 1_000, max: 3_600_000 }),
  /**
   * How many reverse proxies stand in front of Ferry (each appends the address it saw to
   * X-Forwarded-For). Unset or 0: none, the socket's address is the client's. `true` means 1.
   */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const s = (v ?? "").trim().toLowerCase();
      if (s === "" || s === "false") return 0;
      if (s === "true") return 1;
      if (/^\d{1,2}$/.test(s) && Number(s) <= 10) return Number(s);
      ctx.addIssue({ code: "custom", message: "must be false, true, or the number of proxies in front of Ferry (0–10)" });
      return z.NEVER;
    }),
});

export type Env = z.infer<typeof schema>;

let cached: Env | undefined;

/** Thrown when the environment is invalid; the message names every bad variable. */
export class EnvError extends Error {}

/** Parses an environment object (exported for tests). */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = schema.safeParse(source);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
  throw new EnvError(`Invalid environment:\n${lines.join("\n")}`);
}

/** The validated environment of this process (parsed on first use). */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
