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
import { and, asc, count, eq, inArray, isNull, or } from "drizzle-orm";
import { forUpdate, q, type Database, type Steps, type Tx } from "@/db/database";
import { engagements, organizations, serviceTargets, targetEvents, webhookConsumers } from "@/db/schema";
import { findOrganization } from "@/server/accounts/organizations";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { decryptSecret, encryptSecret, maskSecret, type KeyRing } from "@/server/security/secrets";
import { checkpointAfterSecretOverwrite } from "@/db/checkpoint";
import { checkBaseUrl } from "./base-url";
import type { ServiceTargetKind } from "@/core/targets/kinds";
import { limitsOfTarget } from "./limits";
import { resolvedAddressRefusal, targetAddressPolicy } from "./network";
import type { Resolve } from "@/server/service-client/transport";
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

/**
 * One target (never its key), or undefined (a transaction step; `readSteps` runs it outside one).
 */
export function* findServiceTarget(tx: Tx, id: string): Steps<ServiceTargetRecord | undefined> {
  return yield* q.get(tx.select(recordColumns).from(serviceTargets).where(eq(serviceTargets.id, id)));
}

/** One target (never its key), or undefined, read outside a transaction. */
export async function getServiceTarget(database: Database, id: string): Promise<ServiceTargetRecord | undefined> {
  const [target] = await database.db.select(recordColumns).from(serviceTargets).where(eq(serviceTargets.id, id));
  return target;
}

/** The built-in sandbox new engagements start on, if one is registered and not archived (a transaction step). */
export function* findBuiltInSandbox(tx: Tx): Steps<ServiceTargetRecord | undefined> {
  return yield* q.get(
    tx
      .select(recordColumns)
      .from(serviceTargets)
      .where(and(eq(serviceTargets.builtIn, true), isNull(serviceTargets.archivedAt))),
  );
}

/**
 * The target, locked until the transaction ends (FOR UPDATE on PostgreSQL), or NOT_FOUND (admin
 * operations): each checks the target's state and then changes it, so a second admin's change to
 * the same target waits for this one and then checks what it left.
 */
function* loadTargetForChange(tx: Tx, id: string): Steps<ServiceTargetRecord> {
  const target = yield* q.get(forUpdate(tx.select(recordColumns).from(serviceTargets).where(eq(serviceTargets.id, id))));
  if (!target) throw new AppError("NOT_FOUND", "No service target with that id.");
  return target;
}

function cleanName(name: string): string {
  // A name is shown in lists, timelines, mail and log lines: no character in it may break a line or hide words.
  if (/[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(name)) throw fieldError("name", "The name may not hold control characters (line breaks, tabs, direction marks).");
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
function* openEngagementsUsing(tx: Tx, targetId: string): Steps<{ id: string; reference: string; organizationId: string; organizationName: string }[]> {
  return yield* q.all(
    tx
      .select({ id: engagements.id, reference: engagements.reference, organizationId: engagements.organizationId, organizationName: organizations.name })
      .from(engagements)
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .where(and(eq(engagements.serviceTargetId, targetId), inArray(engagements.status, OPEN_STATUSES)))
      .orderBy(asc(engagements.reference)),
  );
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
export async function createServiceTarget(
  database: Database,
  ring: KeyRing,
  actor: Actor | null,
  input: CreateTargetInput,
  options: { resolve?: Resolve } = {},
): Promise<{ id: string }> {
  const name = cleanName(input.name);
  const url = checkBaseUrl(input.baseUrl);
  if (!url.ok) throw fieldError("baseUrl", url.problem);
  // The name's addresses now; the client checks the address it connects to at every call as well.
  const resolved = await resolvedAddressRefusal(new URL(url.url), targetAddressPolicy({ builtIn: false }), options.resolve);
  if (resolved) throw fieldError("baseUrl", `The base URL cannot be used: ${resolved}`);
  const apiKey = cleanKey(input.apiKey);
  const limits = cleanLimits(input);
  const id = crypto.randomUUID();
  const apiKeyCipher = encryptSecret(ring, apiKey, aad(id));
  // Read committed: organisations are never deleted, and the foreign key holds the one named
  // while the target is inserted.
  await database.transaction(
    function* (tx) {
      const org = input.organizationId ? yield* findOrganization(tx, input.organizationId) : null;
      if (input.organizationId && !org) throw fieldError("organizationId", "Choose an existing customer organisation.");
      yield* q.run(
        tx.insert(serviceTargets).values({
          id,
          name,
          baseUrl: url.url,
          apiKeyCipher,
          apiKeyMask: maskSecret(apiKey),
          kind: input.kind,
          organizationId: org?.id ?? null,
          ...limits,
        }),
      );
      yield* writeAudit(tx, {
        actor,
        action: "service_target.created",
        targetId: id,
        organizationId: org?.id ?? null,
        after: { name, baseUrl: url.url, kind: input.kind, organization: org?.name ?? null, ...limits },
      });
    },
    { isolation: "read committed" },
  );
  return { id };
}

type BuiltInSandbox = { id: string; how: "existing" | "marked" | "created" };

/**
 * The built-in sandbox as it is, or made so: the one marked; else a sandbox target at `url`, marked
 * now; else, with `create`, a new one. Null when there is none and `create` is missing.
 */
function* settleBuiltInSandbox(tx: Tx, url: string, create: { id: string; apiKeyCipher: string; apiKeyMask: string } | null): Steps<BuiltInSandbox | null> {
  const existing = yield* findBuiltInSandbox(tx);
  if (existing) return { id: existing.id, how: "existing" };
  const candidate = yield* q.get(
    tx
      .select(recordColumns)
      .from(serviceTargets)
      .where(and(eq(serviceTargets.kind, "sandbox"), eq(serviceTargets.baseUrl, url), isNull(serviceTargets.archivedAt)))
      .orderBy(asc(serviceTargets.createdAt)),
  );
  if (candidate) {
    const org = candidate.organizationId ? yield* findOrganization(tx, candidate.organizationId) : undefined;
    yield* q.run(tx.update(serviceTargets).set({ builtIn: true, organizationId: null, requestsPerMinute: null, dailyQuota: null }).where(eq(serviceTargets.id, candidate.id)));
    yield* writeAudit(tx, { actor: null, action: "service_target.marked_built_in", targetId: candidate.id, before: { organization: org?.name ?? null }, after: { name: candidate.name, baseUrl: url } });
    return { id: candidate.id, how: "marked" };
  }
  if (!create) return null;
  yield* q.run(
    tx.insert(serviceTargets).values({ id: create.id, name: "Ferry sandbox", baseUrl: url, apiKeyCipher: create.apiKeyCipher, apiKeyMask: create.apiKeyMask, kind: "sandbox", builtIn: true }),
  );
  yield* writeAudit(tx, {
    actor: null,
    action: "service_target.created",
    targetId: create.id,
    after: { name: "Ferry sandbox", baseUrl: url, kind: "sandbox", organization: null, builtIn: true },
  });
  return { id: create.id, how: "created" };
}

/**
 * Makes sure the built-in sandbox is registered, at Ferry's start (never through the API). An
 * existing sandbox target at `url` is marked built-in (and taken out of any organisation: it
 * serves all of them); otherwise, when `newApiKey` can make a client on the sandbox, a target is
 * added for it. Returns the built-in target's id, or null when there is none and none can be made.
 */
export async function ensureBuiltInSandbox(
  database: Database,
  ring: KeyRing,
  options: { url: string; newApiKey?: () => Promise<string> },
): Promise<BuiltInSandbox | null> {
  // Stored as createServiceTarget stores URLs, so a sandbox target an admin added at this address matches.
  const url = new URL(options.url).toString().replace(/\/+$/, "");
  // Serializable: the check is that no target is the built-in one yet, and web replicas starting
  // together all ask at once. The loser of the race runs again and finds the winner's.
  const settled = await database.transaction((tx) => settleBuiltInSandbox(tx, url, null), { isolation: "serializable" });
  if (settled || !options.newApiKey) return settled;
  // The sandbox call happens outside any transaction; a key made by a replica that then finds
  // another's sandbox is simply not used.
  const apiKey = await options.newApiKey();
  const id = crypto.randomUUID();
  const create = { id, apiKeyCipher: encryptSecret(ring, apiKey, aad(id)), apiKeyMask: maskSecret(apiKey) };
  return database.transaction((tx) => settleBuiltInSandbox(tx, url, create), { isolation: "serializable" });
}

/** Renames a target (engagements and runs keep pointing at it). */
export async function renameServiceTarget(database: Database, actor: Actor, input: { targetId: string; name: string }): Promise<void> {
  const name = cleanName(input.name);
  await database.transaction(
    function* (tx) {
      const target = yield* loadTargetForChange(tx, input.targetId);
      const refused = editRefusal(target);
      if (refused) throw new AppError("PRECONDITION_FAILED", refused);
      if (target.name === name) return;
      yield* q.run(tx.update(serviceTargets).set({ name }).where(eq(serviceTargets.id, target.id)));
      yield* writeAudit(tx, { actor, action: "service_target.renamed", targetId: target.id, organizationId: target.organizationId, before: { name: target.name }, after: { name } });
    },
    { isolation: "read committed" },
  );
}

/** Sets (or clears, with null) the target's known limits; the built-in sandbox keeps its own. */
export async function setTargetLimits(database: Database, actor: Actor, input: { targetId: string; requestsPerMinute: number | null; dailyQuota: number | null }): Promise<void> {
  const limits = cleanLimits(input);
  await database.transaction(
    function* (tx) {
      const target = yield* loadTargetForChange(tx, input.targetId);
      const refused = editRefusal(target) ?? (target.builtIn ? "The built-in sandbox keeps the limits configured on it (its controls); they are not set here." : null);
      if (refused) throw new AppError("PRECONDITION_FAILED", refused);
      if (target.requestsPerMinute === limits.requestsPerMinute && target.dailyQuota === limits.dailyQuota) return;
      yield* q.run(tx.update(serviceTargets).set(limits).where(eq(serviceTargets.id, target.id)));
      yield* writeAudit(tx, {
        actor,
        action: "service_target.limits_changed",
        targetId: target.id,
        organizationId: target.organizationId,
        before: { requestsPerMinute: target.requestsPerMinute, dailyQuota: target.dailyQuota },
        after: limits,
      });
    },
    { isolation: "read committed" },
  );
}

/**
 * Replaces the target's API key: the new one is encrypted over the old ciphertext (overwritten in
 * the file, see db/client.ts's secure_delete, and cleared from the write-ahead log by a
 * checkpoint), the mask follows, and the change is audited — on the target, and on each
 * unfinished engagement pointed at it. A test or bulk run decrypts the key when a worker takes it
 * up, so it uses the new key from its next start or resume (a run stopped by a refused key resumes
 * with it).
 */
export async function replaceTargetApiKey(database: Database, ring: KeyRing, actor: Actor, input: { targetId: string; apiKey: string }): Promise<{ apiKeyMasked: string }> {
  const apiKey = cleanKey(input.apiKey);
  const apiKeyMasked = maskSecret(apiKey);
  const apiKeyCipher = encryptSecret(ring, apiKey, aad(input.targetId));
  await database.transaction(
    function* (tx) {
      const target = yield* loadTargetForChange(tx, input.targetId);
      const refused = editRefusal(target);
      if (refused) throw new AppError("PRECONDITION_FAILED", refused);
      const before = yield* q.get(tx.select({ mask: serviceTargets.apiKeyMask }).from(serviceTargets).where(eq(serviceTargets.id, target.id)));
      const now = new Date();
      yield* q.run(tx.update(serviceTargets).set({ apiKeyCipher, apiKeyMask: apiKeyMasked }).where(eq(serviceTargets.id, target.id)));
      yield* writeAudit(tx, {
        actor,
        action: "service_target.key_replaced",
        targetId: target.id,
        organizationId: target.organizationId,
        before: { keyMask: before?.mask ?? null },
        after: { keyMask: apiKeyMasked },
        at: now,
      });
      for (const eng of yield* openEngagementsUsing(tx, target.id)) {
        yield* writeAudit(tx, {
          actor,
          action: "engagement.target_key_replaced",
          targetId: eng.id,
          engagementId: eng.id,
          organizationId: eng.organizationId,
          after: { serviceTarget: target.name, keyMask: apiKeyMasked },
          at: now,
        });
      }
    },
    { isolation: "read committed" },
  );
  checkpointAfterSecretOverwrite(database);
  return { apiKeyMasked };
}

/** Archives a target: kept for the record, offered nowhere. Refused while an unfinished engagement points at it. */
export async function archiveServiceTarget(database: Database, actor: Actor, input: { targetId: string }): Promise<void> {
  // Read committed with the target locked: the check is that no unfinished engagement points at
  // it, while another admin may archive it too and staff may point an engagement at it. A second
  // archive waits on the row lock, then reads the row as committed and finds it archived. Pointing
  // an engagement at the target holds a key-share lock on it (the foreign key) until that change
  // commits; the lock here waits for it, and the engagements are then read afresh (read committed
  // takes a new snapshot per statement; serializable would keep the one from before the wait and
  // miss the engagement). For the two to queue whichever starts first, a change of target must also
  // lock the target row as it checks it (forUpdate).
  await database.transaction(
    function* (tx) {
      const target = yield* loadTargetForChange(tx, input.targetId);
      const open = yield* openEngagementsUsing(tx, target.id);
      const refused = archiveRefusal(
        target,
        open.map((e) => `${e.reference}, ${e.organizationName}`),
      );
      if (refused) throw new AppError("PRECONDITION_FAILED", refused);
      yield* q.run(tx.update(serviceTargets).set({ archivedAt: new Date() }).where(eq(serviceTargets.id, target.id)));
      yield* writeAudit(tx, { actor, action: "service_target.archived", targetId: target.id, organizationId: target.organizationId, after: { name: target.name } });
    },
    { isolation: "read committed" },
  );
}

/** Assigns an unassigned target to the organisation whose account it is. */
export async function assignTargetOrganization(database: Database, actor: Actor, input: { targetId: string; organizationId: string }): Promise<void> {
  await database.transaction(
    function* (tx) {
      const target = yield* loadTargetForChange(tx, input.targetId);
      const current = target.organizationId ? yield* findOrganization(tx, target.organizationId) : undefined;
      const refused = assignOrganizationRefusal(target, () => current?.name ?? "another organisation");
      if (refused) throw new AppError("PRECONDITION_FAILED", refused);
      const org = yield* findOrganization(tx, input.organizationId);
      if (!org) throw fieldError("organizationId", "Choose an existing customer organisation.");
      yield* q.run(tx.update(serviceTargets).set({ organizationId: org.id }).where(eq(serviceTargets.id, target.id)));
      yield* writeAudit(tx, { actor, action: "service_target.organization_assigned", targetId: target.id, organizationId: org.id, after: { organization: org.name } });
    },
    { isolation: "read committed" },
  );
}

const limitsWords = (t: ServiceTargetRecord): string => {
  const rule = limitsOfTarget(t);
  if (rule.kind === "built_in_sandbox") return "The sandbox's own configured limits (its controls).";
  return `${rule.source.charAt(0).toUpperCase()}${rule.source.slice(1)}.`;
};

/** Every target, API keys masked (from the stored mask; nothing is decrypted), with its organisation and use. */
export async function listServiceTargets(database: Database): Promise<ServiceTargetView[]> {
  const { db } = database;
  const [rows, uses, events, consumers] = await Promise.all([
    db
      .select({ t: serviceTargets, organizationName: organizations.name })
      .from(serviceTargets)
      .leftJoin(organizations, eq(organizations.id, serviceTargets.organizationId))
      .orderBy(asc(serviceTargets.createdAt)),
    db
      .select({ targetId: engagements.serviceTargetId, reference: engagements.reference, organizationName: organizations.name })
      .from(engagements)
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .where(inArray(engagements.status, OPEN_STATUSES))
      .orderBy(asc(engagements.reference)),
    db.select().from(targetEvents),
    db.select({ targetId: webhookConsumers.targetId, n: count() }).from(webhookConsumers).where(isNull(webhookConsumers.removedAt)).groupBy(webhookConsumers.targetId),
  ]);
  const eventsOf = new Map(events.map((e) => [e.targetId, e]));
  const consumersOf = new Map(consumers.map((c) => [c.targetId, Number(c.n)]));
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
      events: eventsView(eventsOf.get(t.id), consumersOf.get(t.id) ?? 0),
      createdAt: t.createdAt,
    };
  });
}

/** A target's webhook state as its page shows it (no secret: counts, times and the refusal's words). */
function eventsView(e: typeof targetEvents.$inferSelect | undefined, consumers: number): ServiceTargetView["events"] {
  return {
    consumers,
    lastEventAt: e?.lastEventAt ?? null,
    lastEventType: e?.lastEventType ?? null,
    failures: e?.failures ?? 0,
    lastFailureAt: e?.lastFailureAt ?? null,
    lastFailure: e?.lastFailure ?? null,
    // Only a pause still in force.
    pausedUntil: e?.pausedUntil && e.pausedUntil.getTime() > Date.now() ? e.pausedUntil : null,
  };
}

/**
 * The targets an engagement may be pointed at — the built-in sandbox first, then its
 * organisation's, archived ones and ones it may not use left out — and where it points now.
 */
export async function listTargetChoices(database: Database, engagement: { organizationId: string; serviceTargetId: string | null }): Promise<TargetChoicesView> {
  const { db } = database;
  const [rows, [current]] = await Promise.all([
    db
      .select({ ...recordColumns, apiKeyMask: serviceTargets.apiKeyMask, createdAt: serviceTargets.createdAt })
      .from(serviceTargets)
      .where(and(isNull(serviceTargets.archivedAt), or(eq(serviceTargets.builtIn, true), eq(serviceTargets.organizationId, engagement.organizationId))))
      .orderBy(asc(serviceTargets.createdAt)),
    engagement.serviceTargetId ? db.select(recordColumns).from(serviceTargets).where(eq(serviceTargets.id, engagement.serviceTargetId)) : Promise.resolve([]),
  ]);
  const options = rows.filter((t) => targetUseRefusal(t, engagement.organizationId) === null).sort((a, b) => Number(b.builtIn) - Number(a.builtIn));
  return {
    current: current ? { id: current.id, name: current.name, problem: targetUseRefusal(current, engagement.organizationId) } : null,
    options: options.map((t) => ({ id: t.id, name: t.name, baseUrl: t.baseUrl, kind: t.kind, builtIn: t.builtIn, apiKeyMasked: t.apiKeyMask ?? maskSecret("") })),
  };
}

type RevealInput = { targetId: string; purpose: string; engagement?: { engagementId: string; organizationId: string } };

/**
 * The decrypted API key of a target, for the service client only, with its decryption audited (on
 * the engagement's timeline too when `engagement` names the one it is used for): a step of the
 * transaction that records the audit event. A key that no longer decrypts throws SecretDecryptionError and records nothing.
 */
export function* decryptTargetApiKey(tx: Tx, ring: KeyRing, actor: Actor | null, input: RevealInput): Steps<string> {
  const { targetId, purpose, engagement } = input;
  const t = yield* q.get(tx.select({ apiKeyCipher: serviceTargets.apiKeyCipher }).from(serviceTargets).where(eq(serviceTargets.id, targetId)));
  if (!t) throw fieldError("serviceTargetId", "No such service target.");
  const key = decryptSecret(ring, t.apiKeyCipher, aad(targetId));
  yield* writeAudit(tx, { actor, action: "secret.decrypted", targetId, after: { purpose }, ...engagement });
  return key;
}

/** `decryptTargetApiKey` in a transaction of its own. */
export async function revealTargetApiKey(database: Database, ring: KeyRing, actor: Actor | null, input: RevealInput): Promise<string> {
  // Read committed: the audit event is written whatever else changes; nothing is checked.
  return database.transaction((tx) => decryptTargetApiKey(tx, ring, actor, input), { isolation: "read committed" });
}
