/**
 * A customer asks Ferry for an engagement — the platform, roughly how many companies, when it
 * would suit — and support accepts it into a real engagement (opened as "New engagement" opens
 * one, owned by whom support names) or declines it with a reason. Every step is audited; support
 * hears of a new request and the customer of the answer by mail, queued with the change.
 */
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { isStaff } from "@/core/accounts/roles";
import type { EngagementRequestListView, EngagementRequestView } from "@/core/engagements/request-schemas";
import { AppError, fieldError } from "@/server/errors";
import { prepareMail, queueMail } from "@/server/mail/mailer";
import { getManagedPlatform, unmanagedReason } from "@/server/platforms";
import { writeAudit } from "@/server/security/audit";
import { findUser } from "@/server/accounts/users";
import { findOrganization } from "@/server/accounts/organizations";
import { openEngagement } from "../create-engagement";
import { findEngagement, findOpenEngagement } from "../engagement-repository";
import type { WaitingChange } from "../waiting/refresh-waiting";
import { withNotice, type FlowNotice, type NotifyConfig, type NotifyDeps } from "../waiting/notify";
import {
  customerAddresses,
  decideRequest,
  findOpenRequest,
  findRequestForChange,
  insertRequest,
  listRequests,
  requestFilters,
  supportAddresses,
  type RequestRow,
} from "./request-repository";
import { acceptRequestRule, createRequestRule, declineRequestRule, requestDatesProblem } from "./request-rules";

const day = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", day: "numeric", month: "short", year: "numeric" });
/** The preferred dates in words: "from 1 Dec 2026 to 12 Dec 2026", "from 1 Dec 2026". */
export const preferredWords = (r: { preferredFrom: Date; preferredTo: Date | null }) =>
  `from ${day.format(r.preferredFrom)}${r.preferredTo ? ` to ${day.format(r.preferredTo)}` : ""}`;

const platformName = (key: string) => getManagedPlatform(key)?.name ?? key;

/** Throws a rule's refusal: FORBIDDEN for the wrong role, the given code otherwise. */
function enforce(allowed: { allowed: boolean; reason: string | null }, roleOk: boolean, code: "PRECONDITION_FAILED" | "CONFLICT" = "PRECONDITION_FAILED"): void {
  if (allowed.allowed) return;
  throw new AppError(roleOk ? code : "FORBIDDEN", allowed.reason ?? "Not allowed now.");
}

/** A customer asks for an engagement; support is mailed. Returns the request's id. */
export async function createEngagementRequest(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { platformKey: string; companies: number; preferredFrom: Date; preferredTo: Date | null; note?: string },
  now: Date = new Date(),
): Promise<{ requestId: string }> {
  enforce(createRequestRule(actor), actor.role === "customer");
  const organizationId = actor.organizationId!;
  const platform = getManagedPlatform(input.platformKey);
  if (!platform) throw fieldError("platformKey", unmanagedReason(input.platformKey) ?? "Choose one of the platforms listed.");
  const dates = requestDatesProblem(input, now);
  if (dates) throw fieldError(dates.field, dates.message);
  const note = input.note?.trim() || null;
  // Made before the transaction, which may run more than once on PostgreSQL.
  const requestId = crypto.randomUUID();
  // Serializable: "no open request or engagement on this platform yet" is about rows that may not
  // exist; two requests sent at once (a double click) store one, the other is refused.
  await database.transaction(
    function* (tx) {
      const open = yield* findOpenEngagement(tx, organizationId, platform.key);
      if (open) {
        const message = `You already have an open ${platform.name} engagement (${open.reference}): follow it under Your engagements.`;
        throw new AppError("CONFLICT", message, { fields: { platformKey: message } });
      }
      const asked = yield* findOpenRequest(tx, organizationId, platform.key);
      if (asked) {
        const message = `You already asked for a ${platform.name} engagement on ${day.format(asked.requestedAt)}; Ferry support answers it soon.`;
        throw new AppError("CONFLICT", message, { fields: { platformKey: message } });
      }
      const at = new Date();
      yield* insertRequest(tx, {
        id: requestId,
        organizationId,
        platformKey: platform.key,
        companies: input.companies,
        preferredFrom: input.preferredFrom,
        preferredTo: input.preferredTo,
        note,
        status: "open",
        requestedById: actor.id,
        requestedAt: at,
      });
      yield* writeAudit(tx, {
        actor,
        action: "engagement_request.created",
        targetId: requestId,
        organizationId,
        after: {
          platformKey: platform.key,
          companies: input.companies,
          preferredFrom: input.preferredFrom.toISOString(),
          preferredTo: input.preferredTo?.toISOString() ?? null,
          note,
        },
        at,
      });
      const orgName = (yield* findOrganization(tx, organizationId))?.name ?? "A customer";
      const text = [
        `${actor.name} (${actor.email}) of ${orgName} asks for a managed migration:`,
        `- Platform: ${platform.name}`,
        `- Companies: about ${input.companies.toLocaleString("en-GB")}`,
        `- When it would suit: ${preferredWords(input)}`,
        ...(note ? [`- Note: ${note}`] : []),
        "",
        `Accept it into an engagement, or decline it with a reason: ${deps.notify.appUrl.replace(/\/$/, "")}/engagements#requests`,
      ].join("\n");
      yield* queueEach(tx, deps.notify, yield* supportAddresses(tx), { subject: `New engagement request: ${orgName}, ${platform.name}`, text });
    },
    { isolation: "serializable" },
  );
  return { requestId };
}

function view(actor: Actor, row: Awaited<ReturnType<typeof readRows>>[number]): EngagementRequestView {
  const { r } = row;
  const reference = row.reference ?? null;
  return {
    id: r.id,
    organization: { id: r.organizationId, name: row.orgName },
    platform: { key: r.platformKey, name: platformName(r.platformKey) },
    companies: r.companies,
    preferredFrom: r.preferredFrom,
    preferredTo: r.preferredTo,
    note: r.note,
    status: r.status,
    requestedBy: row.by,
    requestedAt: r.requestedAt,
    decidedBy: row.decidedBy ? { name: row.decidedBy } : null,
    decidedAt: r.decidedAt,
    declineReason: r.declineReason,
    engagement: r.engagementId && reference ? { id: r.engagementId, reference } : null,
    accept: acceptRequestRule(actor.role, r.status, reference),
    decline: declineRequestRule(actor.role, r.status, reference),
  };
}

function readRows(database: Database, actor: Actor) {
  return readSteps(database, function* (tx) {
    if (isStaff(actor.role)) {
      // Every open request (the longest waiting first), then the latest answered ones for the record.
      const open = yield* listRequests(tx, { where: requestFilters.open, order: "oldest", limit: 200 });
      const answered = yield* listRequests(tx, { where: requestFilters.answered, order: "newest", limit: 20 });
      return [...open, ...answered];
    }
    if (!actor.organizationId) return [];
    return yield* listRequests(tx, { where: requestFilters.ofOrganization(actor.organizationId), order: "newest", limit: 50 });
  });
}

/** The requests the viewer may see: staff every open one and the latest answered; a customer their organisation's. */
export async function listEngagementRequests(database: Database, actor: Actor): Promise<EngagementRequestListView> {
  const rows = await readRows(database, actor);
  const requests = rows.map((row) => view(actor, row));
  return { requests, open: requests.filter((r) => r.status === "open").length, create: createRequestRule(actor) };
}

/** The request, locked, if the rule lets the actor answer it now (the refusal names the engagement it became). */
function* loadForAnswer(tx: Tx, actor: Actor, requestId: string, rule: typeof acceptRequestRule): Steps<RequestRow> {
  const request = yield* findRequestForChange(tx, requestId);
  if (!request) throw new AppError("NOT_FOUND", "No such request.");
  const became = request.engagementId ? yield* findEngagement(tx, request.engagementId) : undefined;
  enforce(rule(actor.role, request.status, became?.reference ?? null), isStaff(actor.role));
  return request;
}

/**
 * Support accepts an open request: the engagement is opened in the same transaction (so it and
 * the request never disagree), owned by `ownerId` or the one accepting. The customer is told.
 */
export async function acceptEngagementRequest(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { requestId: string; ownerId?: string | null },
): Promise<{ engagementId: string; reference: string; waiting: WaitingChange | null; notice: FlowNotice }> {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Ferry support answers requests for engagements.");
  // Serializable, as opening an engagement is (its checks are about rows that may not exist yet).
  return database.transaction(
    function* (tx) {
      const request = yield* loadForAnswer(tx, actor, input.requestId, acceptRequestRule);
      const at = new Date();
      const opened = yield* openEngagement(tx, actor, { organizationId: request.organizationId, platformKey: request.platformKey, ownerId: input.ownerId ?? actor.id, at });
      yield* decideRequest(tx, request.id, { status: "accepted", decidedById: actor.id, decidedAt: at, engagementId: opened.id });
      const owner = yield* findUser(tx, input.ownerId ?? actor.id);
      yield* writeAudit(tx, {
        actor,
        action: "engagement_request.accepted",
        targetId: request.id,
        engagementId: opened.id,
        organizationId: request.organizationId,
        after: { reference: opened.reference, owner: owner?.name ?? actor.name },
        at,
      });
      return yield* withNotice(tx, deps.notify, opened.id, {
        engagementId: opened.id,
        reference: opened.reference,
        waiting: opened.waiting,
        notice: {
          to: "customer" as const,
          subject: "Your engagement request was accepted",
          text: `${actor.name} accepted your request for a ${platformName(request.platformKey)} engagement (about ${request.companies.toLocaleString("en-GB")} companies, ${preferredWords(request)}). It is ${opened.reference}: start with step 1, your OAuth app's details and the token file.`,
        },
      });
    },
    { isolation: "serializable" },
  );
}

/** Support declines an open request with a reason; the organisation's customer users are mailed it. */
export async function declineEngagementRequest(database: Database, deps: NotifyDeps, actor: Actor, input: { requestId: string; reason: string }): Promise<void> {
  const reason = input.reason.trim();
  if (!reason) throw fieldError("reason", "Say why, so the customer knows what to do next.");
  await database.transaction(
    function* (tx) {
      const request = yield* loadForAnswer(tx, actor, input.requestId, declineRequestRule);
      const at = new Date();
      yield* decideRequest(tx, request.id, { status: "declined", decidedById: actor.id, decidedAt: at, declineReason: reason });
      yield* writeAudit(tx, { actor, action: "engagement_request.declined", targetId: request.id, organizationId: request.organizationId, after: { reason }, at });
      const text = `${actor.name} of Ferry support declined your request for a ${platformName(request.platformKey)} engagement (about ${request.companies.toLocaleString("en-GB")} companies, ${preferredWords(request)}).\n\nWhy: ${reason}\n\nYou can ask again from Your engagements: ${deps.notify.appUrl.replace(/\/$/, "")}/portal\n`;
      yield* queueEach(tx, deps.notify, yield* customerAddresses(tx, request.organizationId), { subject: `Your ${platformName(request.platformKey)} engagement request was declined`, text });
    },
    { isolation: "read committed" },
  );
}

/** Queues the same message to each address (no secrets: made inside the body); a transaction step. */
function* queueEach(tx: Tx, config: NotifyConfig, addresses: readonly string[], message: { subject: string; text: string }): Steps<void> {
  for (const to of addresses) yield* queueMail(tx, prepareMail(config.mail, { to, ...message }));
}
