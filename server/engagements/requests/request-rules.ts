/**
 * A customer's request for an engagement, as rules (pure): who may ask, what a request must say,
 * and who may answer it in which state. The operations enforce the same answers the screens show.
 */
import { isStaff, type Role } from "@/core/accounts/roles";
import type { EngagementRequestStatus } from "@/core/engagements/flow-states";
import { MAX_REQUEST_DAYS_AHEAD } from "@/core/engagements/request-schemas";

export type Allowed = { allowed: boolean; reason: string | null };
const yes: Allowed = { allowed: true, reason: null };
const no = (reason: string): Allowed => ({ allowed: false, reason });

const DAY = 86_400_000;

/** Midnight UTC of the day `at` falls on. */
export const utcDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY) * DAY);

/** Customers of an organisation ask for engagements; staff open them directly. */
export function createRequestRule(actor: { role: Role; organizationId: string | null }): Allowed {
  if (actor.role !== "customer") return no("Customers ask for engagements; support staff open them under New engagement.");
  if (!actor.organizationId) return no("Your account belongs to no organisation: ask Ferry support to add you to one.");
  return yes;
}

/** What is wrong with a request's dates, named by field (null when they are fine), at `now`. */
export function requestDatesProblem(input: { preferredFrom: Date; preferredTo: Date | null }, now: Date): { field: "preferredFrom" | "preferredTo"; message: string } | null {
  if (Number.isNaN(input.preferredFrom.getTime())) return { field: "preferredFrom", message: "Give the first day that would suit, such as 1 Dec 2026." };
  if (input.preferredFrom.getTime() < utcDay(now).getTime()) return { field: "preferredFrom", message: "The first day that would suit must be today or later." };
  if (input.preferredFrom.getTime() > utcDay(now).getTime() + MAX_REQUEST_DAYS_AHEAD * DAY) return { field: "preferredFrom", message: "Choose a first day within the next two years." };
  if (input.preferredTo) {
    if (Number.isNaN(input.preferredTo.getTime())) return { field: "preferredTo", message: "Give the last day that would suit, such as 12 Dec 2026, or leave it empty." };
    if (input.preferredTo.getTime() < input.preferredFrom.getTime()) return { field: "preferredTo", message: "The last day must be on or after the first day." };
    if (input.preferredTo.getTime() > utcDay(now).getTime() + MAX_REQUEST_DAYS_AHEAD * DAY) return { field: "preferredTo", message: "Choose a last day within the next two years." };
  }
  return null;
}

function answerRule(role: Role, status: EngagementRequestStatus, reference: string | null): Allowed {
  if (!isStaff(role)) return no("Ferry support answers requests for engagements.");
  switch (status) {
    case "open":
      return yes;
    case "accepted":
      return no(`This request was already accepted${reference ? ` as ${reference}` : ""}.`);
    case "declined":
      return no("This request was already declined.");
    default: {
      const never: never = status;
      return never;
    }
  }
}

/** Support accepts an open request into an engagement. */
export const acceptRequestRule = answerRule;
/** Support declines an open request, with a reason. */
export const declineRequestRule = answerRule;
