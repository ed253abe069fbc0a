/** Audit events in words, for the engagement timeline. */
import { getManagedPlatform } from "@/server/platforms";
import { STEPS } from "./checklist";

type Event = {
  action: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
};

const stepTitle = (n: unknown) => {
  const def = STEPS.find((s) => s.number === Number(n));
  return def ? `step ${def.number} (${def.title})` : `step ${String(n)}`;
};

const words = (v: unknown) => String(v ?? "").replace(/_/g, " ");
/** Free text that other words follow: without its closing punctuation, so "…app.; also" cannot happen. */
const clause = (v: unknown) => String(v ?? "").trim().replace(/[.;:,!]+$/, "");

/** One line describing what an audit event changed. */
export function describeAuditEvent(ev: Event): string {
  const a = ev.after ?? {};
  const b = ev.before ?? {};
  switch (ev.action) {
    case "engagement.created":
      return `Created the engagement for ${words(a.organization)} on ${getManagedPlatform(String(a.platform))?.name ?? words(a.platform)}, owned by ${words(a.owner)}`;
    case "engagement.status_changed":
      return `Changed status from ${words(b.status)} to ${words(a.status)}${a.reason ? `: ${clause(a.reason)}` : ""}`;
    case "engagement.owner_changed":
      return `Handed the engagement from ${words(b.owner)} to ${words(a.owner)}`;
    case "engagement.target_changed":
      return `Pointed the engagement at ${words(a.serviceTarget)} (${words(a.baseUrl)})`;
    case "step.started":
      return `Started ${stepTitle(a.step)}`;
    case "step.completed":
      return `Completed ${stepTitle(a.step)}${a.note ? `: ${clause(a.note)}` : ""}`;
    case "step.reopened": {
      const cascade = Array.isArray(a.cascade) ? (a.cascade as unknown[]) : [];
      const also = cascade.length ? `; also reopened ${cascade.map(stepTitle).join(", ")}` : "";
      return `Reopened ${stepTitle(a.step)}: ${clause(a.reason)}${also}`;
    }
    default:
      return ev.action.replace(/[._]/g, " ");
  }
}
