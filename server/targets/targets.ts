/**
 * Service targets: where an engagement's migration runs. A target is one customer's own account
 * on the service (base URL + API key), so it belongs to that customer's organisation; the built-in
 * sandbox serves every organisation. Targets from before organisations were recorded wait,
 * unassigned, for an admin.
 *
 * The API key is encrypted at rest and only ever shown masked: the mask is made when the key is
 * encrypted, so listing never decrypts (and one value that no longer decrypts cannot break the
 * list). The key is decrypted only to be used, and each decryption is audited.
 */
import { and, asc, eq, inArray, isNull, or } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runSync } from "@/db/database";
import { engagements, organizations, serviceTargets } from "@/db/schema";
import { findOrganization } from "@/server/accounts/organizations";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import { decryptSecret, encryptSecret, maskSecret, type KeyRing } from "@/server/security/secrets";
import { checkBaseUrl } from "./base-url";
import type { ServiceTargetKind } from "@/core/targets/kinds";
import { limitsOfTarget } from "./limits";
import { archiveRefusal, assignOrganizationRefusal, editRefusal, targetUseRefusal, type TargetFacts } from "./rules";
import { MAX_DAILY_QUOTA, MAX_REQUESTS_PER_MINUTE, type ServiceTargetView, type TargetChoicesView } from "@/core/targets/schemas";

const aad = (id: string) => `service_target:${id}`;

/** Engagement statuses in which an engagement may still migrate: a target they use is in use. */
const OPEN_STATUSES: ("active" | "on_hold")[] = ["active", "on_hold"];

/** A target as the domain reads it (never its key). */
export type ServiceTargetRecord = TargetFacts & {
  id: string;
  kind: ServiceTargetKind;
  requestsPerMinute: number | null;
  dailyQuota: number | null;
};

const recordColumns = {
  id: serviceTargets.id,
  name: serviceTargets.name,
  kind: serviceTargets.kind,
  baseUrl: serviceTargets.baseUrl,
  organizationId: serviceTargets.organizationId,
  builtIn: serviceTargets.builtIn,
  archivedAt: serviceTargets.archivedAt,
  requestsPerMinute: serviceTargets.requestsPerMinute,
  dailyQuota: serviceTargets.dailyQuota,
};

/** One target (never its key), or undefined. */
export function findServiceTarget(tx: DbOrTx, id: string): ServiceTargetRecord | undefined {
  return tx.select(recordColumns).from(serviceTargets).where(eq(serviceTargets.id, id)).get();
}

/** The built-in sandbox new engagements start on, if one is registered (and not archived). */
export function findBuiltInSandbox(tx: DbOrTx): ServiceTargetRecord | undefined {
  return tx
    .select(recordColumns)
    .from(serviceTargets)
    .where(and(eq(serviceTargets.builtIn, true), isNull(serviceTargets.archivedAt)))
    .get();
}

/** The target, or NOT_FOUND (admin operations). */
function loadTarget(tx: DbOrTx, id: string): ServiceTargetRecord {
  const target = findServiceTarget(tx, id);
  if (!target) throw new AppError("NOT_FOUND", "No service target with that id.");
  return target;
}

function cleanName(name: string): string {
  const clean = name.trim().replace(/\s+/g, " ");
  if (!clean) throw fieldError("name", "Name the target, e.g. Production — Acme Lending");
  if (clean.length > 80) throw fieldError("name", "Keep the name to 80 characters.");
  return clean;
}

function cleanKey(apiKey: string): string {
  const key = apiKey.trim();
  if (!key) throw fieldError("apiKey", "Enter the API key.");
  if (key.length > 500) throw fieldError("apiKey", "An API key is at most 500 characters.");
  return key;
}

/** Known limits as stored: null (the documented limit) or a whole number within bounds. */
function cleanLimits(input: { requestsPerMinute?: number | null; dailyQuota?: number | null }): { requestsPerMinute: number | null; dailyQuota: number | null } {
  const check = (field: "requestsPerMinute" | "dailyQuota", value: number | null | undefined, max: number, what: string) => {
    if (value === null || value === undefined) return null;
    if (!Number.isInteger(value) || value < 1 || value > max) throw fieldError(field, `${what} is a whole number from 1 to ${max.toLocaleString("en-GB")}, or empty for the service's published limit.`);
    return value;
  };
  return {
    requestsPerMinute: check("requestsPerMinute", input.requestsPerMinute, MAX_REQUESTS_PER_MINUTE, "Requests per minute"),
    dailyQuota: check("dailyQuota", input.dailyQuota, MAX_DAILY_QUOTA, "The daily quota"),
  };
}

/** Unfinished engagements pointed at the target, by reference. */
function openEngagementsUsing(tx: DbOrTx, targetId: string): { id: string; reference: string; organizationId: string; organizationName: string }[] {
  return tx
    .select({ id: engagements.id, reference: engagements.reference, organizationId: engagements.organizationId, organizationName: organizations.name })
    .from(engagements)
    .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
    .where(and(eq(engagements.serviceTargetId, targetId), inArray(engagements.status, OPEN_STATUSES)))
    .orderBy(asc(engagements.reference))
    .all();
}

export type CreateTargetInput = {
  name: string;
  baseUrl: string;
  apiKey: string;
  kind: ServiceTargetKind;
  /** Whose account it is; null or omitted: unassigned until an admin assigns it. */
  organizationId?: string | null;
  requestsPerMinute?: number | null;
  dailyQuota?: number | null;
};

/**
 * Adds a service target with its API key encrypted. Its base URL must be https (plain http only on
 * this machine's loopback). It is never the built-in sandbox: only Ferry's start marks that one.
 */
export function createServiceTarget(db: Db, ring: KeyRing, actor: Actor | null, input: CreateTargetInput): { id: string } {
  const name = cleanName(input.name);
  const url = checkBaseUrl(input.baseUrl);
  if (!url.ok) throw fieldError("baseUrl", url.problem);
  const apiKey = cleanKey(input.apiKey);
  const limits = cleanLimits(input);
  const id = crypto.randomUUID();
  db.transaction((tx) => {
    const org = input.organizationId ? runSync(findOrganization(tx, input.organizationId)) : null;
    if (input.organizationId && !org) throw fieldError("organizationId", "Choose an existing customer organisation.");
    tx.insert(serviceTargets)
      .values({
        id,
        name,
        baseUrl: url.url,
        apiKeyCipher: encryptSecret(ring, apiKey, aad(id)),
        apiKeyMask: maskSecret(apiKey),
        kind: input.kind,
        organizationId: org?.id ?? null,
        ...limits,
      })
      .run();
    recordAudit(tx, {
      actor,
      action: "service_target.created",
      targetId: id,
      organizationId: org?.id ?? null,
      after: { name, baseUrl: url.url, kind: input.kind, organization: org?.name ?? null, ...limits },
    });
  });
  return { id };
}

/**
 * Makes sure the built-in sandbox is registered, at Ferry's start (never through the API). An
 * existing sandbox target at `url` is marked built-in (and taken out of any organisation: it
 * serves all of them); otherwise, when `newApiKey` can make a client on the sandbox, a target is
 * added for it. Returns the built-in target's id, or null when there is none and none can be made.
 */
export async function ensureBuiltInSandbox(
  db: Db,
  ring: KeyRing,
  options: { url: string; newApiKey?: () => Promise<string> },
): Promise<{ id: string; how: "existing" | "marked" | "created" } | null> {
  const existing = findBuiltInSandbox(db);
  if (existing) return { id: existing.id, how: "existing" };
  // Stored as createServiceTarget stores URLs, so a sandbox target an admin added at this address matches.
  const url = new URL(options.url).toString().replace(/\/+$/, "");
  const candidate = db
    .select(recordColumns)
    .from(serviceTargets)
    .where(and(eq(serviceTargets.kind, "sandbox"), eq(serviceTargets.baseUrl, url), isNull(serviceTargets.archivedAt)))
    .orderBy(asc(serviceTargets.createdAt))
    .get();
  if (candidate) {
    db.transaction((tx) => {
      const org = candidate.organizationId ? runSync(findOrganization(tx, candidate.organizationId)) : undefined;
      tx.update(serviceTargets).set({ builtIn: true, organizationId: null, requestsPerMinute: null, dailyQuota: null }).where(eq(serviceTargets.id, candidate.id)).run();
      recordAudit(tx, { actor: null, action: "service_target.marked_built_in", targetId: candidate.id, before: { organization: org?.name ?? null }, after: { name: candidate.name, baseUrl: url } });
    });
    return { id: candidate.id, how: "marked" };
  }
  if (!options.newApiKey) return null;
  const apiKey = await options.newApiKey();
  const id = crypto.randomUUID();
  db.transaction((tx) => {
    tx.insert(serviceTargets)
      .values({ id, name: "Ferry sandbox", baseUrl: url, apiKeyCipher: encryptSecret(ring, apiKey, aad(id)), apiKeyMask: maskSecret(apiKey), kind: "sandbox", builtIn: true })
      .run();
    recordAudit(tx, {
      actor: null,
      action: "service_target.created",
      targetId: id,
      after: { name: "Ferry sandbox", baseUrl: url, kind: "sandbox", organization: null, builtIn: true },
    });
  });
  return { id, how: "created" };
}

/** Renames a target (engagements and runs keep pointing at it). */
export function renameServiceTarget(db: Db, actor: Actor, input: { targetId: string; name: string }): void {
  const name = cleanName(input.name);
  db.transaction((tx) => {
    const target = loadTarget(tx, input.targetId);
    const refused = editRefusal(target);
    if (refused) throw new AppError("PRECONDITION_FAILED", refused);
    if (target.name === name) return;
    tx.update(serviceTargets).set({ name }).where(eq(serviceTargets.id, target.id)).run();
    recordAudit(tx, { actor, action: "service_target.renamed", targetId: target.id, organizationId: target.organizationId, before: { name: target.name }, after: { name } });
  });
}

/** Sets (or clears, with null) the target's known limits; the built-in sandbox keeps its own. */
export function setTargetLimits(db: Db, actor: Actor, input: { targetId: string; requestsPerMinute: number | null; dailyQuota: number | null }): void {
  const limits = cleanLimits(input);
  db.transaction((tx) => {
    const target = loadTarget(tx, input.targetId);
    const refused = editRefusal(target) ?? (target.builtIn ? "The built-in sandbox keeps the limits configured on it (its controls); they are not set here." : null);
    if (refused) throw new AppError("PRECONDITION_FAILED", refused);
    if (target.requestsPerMinute === limits.requestsPerMinute && target.dailyQuota === limits.dailyQuota) return;
    tx.update(serviceTargets).set(limits).where(eq(serviceTargets.id, target.id)).run();
    recordAudit(tx, {
      actor,
      action: "service_target.limits_changed",
      targetId: target.id,
      organizationId: target.organizationId,
      before: { requestsPerMinute: target.requestsPerMinute, dailyQuota: target.dailyQuota },
      after: limits,
    });
  });
}

/**
 * Replaces the target's API key: the new one is encrypted over the old ciphertext (overwritten in
 * the file, see db/client.ts's secure_delete, and cleared from the write-ahead log by a
 * checkpoint), the mask follows, and the change is audited — on the target, and on each
 * unfinished engagement pointed at it. A test or bulk run decrypts the key when a worker takes it
 * up, so it uses the new key from its next start or resume (a run stopped by a refused key resumes
 * with it).
 */
export function replaceTargetApiKey(db: Db, ring: KeyRing, actor: Actor, input: { targetId: string; apiKey: string }): { apiKeyMasked: string } {
  const apiKey = cleanKey(input.apiKey);
  const apiKeyMasked = maskSecret(apiKey);
  db.transaction((tx) => {
    const target = loadTarget(tx, input.targetId);
    const refused = editRefusal(target);
    if (refused) throw new AppError("PRECONDITION_FAILED", refused);
    const before = tx.select({ mask: serviceTargets.apiKeyMask }).from(serviceTargets).where(eq(serviceTargets.id, target.id)).get();
    const now = new Date();
    tx.update(serviceTargets).set({ apiKeyCipher: encryptSecret(ring, apiKey, aad(target.id)), apiKeyMask: apiKeyMasked }).where(eq(serviceTargets.id, target.id)).run();
    recordAudit(tx, {
      actor,
      action: "service_target.key_replaced",
      targetId: target.id,
      organizationId: target.organizationId,
      before: { keyMask: before?.mask ?? null },
      after: { keyMask: apiKeyMasked },
      at: now,
    });
    for (const eng of openEngagementsUsing(tx, target.id)) {
      recordAudit(tx, {
        actor,
        action: "engagement.target_key_replaced",
        targetId: eng.id,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        after: { serviceTarget: target.name, keyMask: apiKeyMasked },
        at: now,
      });
    }
  });
  // The old ciphertext's page copies in the write-ahead log go too (best effort while others read).
  db.$client.pragma("wal_checkpoint(TRUNCATE)");
  return { apiKeyMasked };
}

/** Archives a target: kept for the record, offered nowhere. Refused while an unfinished engagement points at it. */
export function archiveServiceTarget(db: Db, actor: Actor, input: { targetId: string }): void {
  const check = (tx: DbOrTx) => {
    const target = loadTarget(tx, input.targetId);
    const refused = archiveRefusal(
      target,
      openEngagementsUsing(tx, target.id).map((e) => `${e.reference}, ${e.organizationName}`),
    );
    if (refused) throw new AppError("PRECONDITION_FAILED", refused);
    return target;
  };
  check(db);
  db.transaction((tx) => {
    const target = check(tx);
    tx.update(serviceTargets).set({ archivedAt: new Date() }).where(eq(serviceTargets.id, target.id)).run();
    recordAudit(tx, { actor, action: "service_target.archived", targetId: target.id, organizationId: target.organizationId, after: { name: target.name } });
  });
}

/** Assigns an unassigned target to the organisation whose account it is. */
export function assignTargetOrganization(db: Db, actor: Actor, input: { targetId: string; organizationId: string }): void {
  db.transaction((tx) => {
    const target = loadTarget(tx, input.targetId);
    const refused = assignOrganizationRefusal(target, (id) => runSync(findOrganization(tx, id))?.name ?? "another organisation");
    if (refused) throw new AppError("PRECONDITION_FAILED", refused);
    const org = runSync(findOrganization(tx, input.organizationId));
    if (!org) throw fieldError("organizationId", "Choose an existing customer organisation.");
    tx.update(serviceTargets).set({ organizationId: org.id }).where(eq(serviceTargets.id, target.id)).run();
    recordAudit(tx, { actor, action: "service_target.organization_assigned", targetId: target.id, organizationId: org.id, after: { organization: org.name } });
  });
}

const limitsWords = (t: ServiceTargetRecord): string => {
  const rule = limitsOfTarget(t);
  if (rule.kind === "built_in_sandbox") return "The sandbox's own configured limits (its controls).";
  return `${rule.source.charAt(0).toUpperCase()}${rule.source.slice(1)}.`;
};

/** Every target, API keys masked (from the stored mask; nothing is decrypted), with its organisation and use. */
export function listServiceTargets(db: Db): ServiceTargetView[] {
  const rows = db
    .select({ t: serviceTargets, organizationName: organizations.name })
    .from(serviceTargets)
    .leftJoin(organizations, eq(organizations.id, serviceTargets.organizationId))
    .orderBy(asc(serviceTargets.createdAt))
    .all();
  const uses = db
    .select({ targetId: engagements.serviceTargetId, reference: engagements.reference, organizationName: organizations.name })
    .from(engagements)
    .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
    .where(inArray(engagements.status, OPEN_STATUSES))
    .orderBy(asc(engagements.reference))
    .all();
  const byTarget = new Map<string, string[]>();
  for (const u of uses) if (u.targetId) byTarget.set(u.targetId, [...(byTarget.get(u.targetId) ?? []), `${u.reference} (${u.organizationName})`]);
  return rows.map(({ t, organizationName }) => {
    const inUse = byTarget.get(t.id) ?? [];
    const url = checkBaseUrl(t.baseUrl);
    return {
      id: t.id,
      name: t.name,
      baseUrl: t.baseUrl,
      kind: t.kind,
      builtIn: t.builtIn,
      organization: t.organizationId && organizationName ? { id: t.organizationId, name: organizationName } : null,
      // Targets added before masks were stored show no characters of their key.
      apiKeyMasked: t.apiKeyMask ?? maskSecret(""),
      requestsPerMinute: t.requestsPerMinute,
      dailyQuota: t.dailyQuota,
      limitsText: limitsWords(t),
      archivedAt: t.archivedAt,
      problem: !t.builtIn && !url.ok ? `No engagement can use it: ${url.problem}` : null,
      inUse: { count: inUse.length, engagements: inUse.slice(0, 10) },
      createdAt: t.createdAt,
    };
  });
}

/**
 * The targets an engagement may be pointed at — the built-in sandbox first, then its
 * organisation's, archived ones and ones it may not use left out — and where it points now.
 */
export function listTargetChoices(db: DbOrTx, engagement: { organizationId: string; serviceTargetId: string | null }): TargetChoicesView {
  const rows = db
    .select({ ...recordColumns, apiKeyMask: serviceTargets.apiKeyMask, createdAt: serviceTargets.createdAt })
    .from(serviceTargets)
    .where(and(isNull(serviceTargets.archivedAt), or(eq(serviceTargets.builtIn, true), eq(serviceTargets.organizationId, engagement.organizationId))))
    .orderBy(asc(serviceTargets.createdAt))
    .all()
    .filter((t) => targetUseRefusal(t, engagement.organizationId) === null)
    .sort((a, b) => Number(b.builtIn) - Number(a.builtIn));
  const current = engagement.serviceTargetId ? findServiceTarget(db, engagement.serviceTargetId) : undefined;
  return {
    current: current ? { id: current.id, name: current.name, problem: targetUseRefusal(current, engagement.organizationId) } : null,
    options: rows.map((t) => ({ id: t.id, name: t.name, baseUrl: t.baseUrl, kind: t.kind, builtIn: t.builtIn, apiKeyMasked: t.apiKeyMask ?? maskSecret("") })),
  };
}

/**
 * The decrypted API key of a target, for the service client only; the decryption is audited (on
 * the engagement's timeline too when `engagement` names the one it is used for).
 */
export function revealTargetApiKey(
  db: Db,
  ring: KeyRing,
  actor: Actor | null,
  input: { targetId: string; purpose: string; engagement?: { engagementId: string; organizationId: string } },
): string {
  const { targetId, purpose, engagement } = input;
  const t = db.select().from(serviceTargets).where(eq(serviceTargets.id, targetId)).get();
  if (!t) throw fieldError("serviceTargetId", "No such service target.");
  const key = decryptSecret(ring, t.apiKeyCipher, aad(targetId));
  recordAudit(db, { actor, action: "secret.decrypted", targetId, after: { purpose }, ...engagement });
  return key;
}
