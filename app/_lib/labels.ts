/** Words the UI uses for statuses, states and parties, and the step titles for filters. */
import { STEPS } from "@/core/engagements/steps";
import { ALL_STEPS_DONE } from "@/core/engagements/states";
import type { EngagementStatus, Role, StepView } from "./types";

export { ENGAGEMENT_STATUSES } from "@/core/engagements/states";

/** A current step's title (the checklist's own), or "All steps done" past the sixth. */
export function currentStepTitle(step: number): string {
  if (step >= ALL_STEPS_DONE) return "All steps done";
  return STEPS.find((s) => s.number === step)?.title ?? `Step ${step}`;
}

export function statusLabel(status: EngagementStatus): string {
  switch (status) {
    case "active":
      return "Active";
    case "on_hold":
      return "On hold";
    case "completed":
      return "Completed";
    case "cancelled":
      return "Cancelled";
    default: {
      const never: never = status;
      return never;
    }
  }
}

export function stepStateLabel(state: StepView["displayState"]): string {
  switch (state) {
    case "pending":
      return "Pending";
    case "in_progress":
      return "In progress";
    case "done":
      return "Done";
    case "locked":
      return "Locked";
    default: {
      const never: never = state;
      return never;
    }
  }
}

export function responsibleLabel(responsible: StepView["responsible"]): string {
  switch (responsible) {
    case "customer":
      return "Customer";
    case "customer_and_support":
      return "Customer and support";
    case "support":
      return "Support";
    default: {
      const never: never = responsible;
      return never;
    }
  }
}

export function roleLabel(role: Role): string {
  switch (role) {
    case "admin":
      return "Admin";
    case "support":
      return "Support";
    case "customer":
      return "Customer";
    default: {
      const never: never = role;
      return never;
    }
  }
}

const dateTime = new Intl.DateTimeFormat("en-GB", {
  timeZone: "UTC",
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
});

/**
 * Times are shown in UTC: migration windows are agreed in UTC, and the server and browser
 * render the same text (no hydration mismatch across time zones).
 */
export function formatDateTime(date: Date | null | undefined): string {
  if (!date) return "—";
  return `${dateTime.format(date)} UTC`;
}

/** Whose move it is, as lists and headers say it. */
export function waitingLabel(party: "customer" | "support" | null, viewer: "console" | "portal" = "console"): string {
  switch (party) {
    case "customer":
      return viewer === "portal" ? "Your move" : "Customer's move";
    case "support":
      return viewer === "portal" ? "Ferry support's move" : "Support's move";
    case null:
      return "Nobody's move";
    default: {
      const never: never = party;
      return never;
    }
  }
}

/** A duration in words: "45 s", "12 min 5 s", "3 h 20 min", "2 d 4 h" (the estimate's own wording). */
export { formatDuration } from "@/core/format";
