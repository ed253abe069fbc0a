/**
 * Step 3's round trip, the pure part: what the throwaway connection's state says (linked: the
 * platform sent the authorization to the service's callback URL; refused: the platform would not
 * redirect there), what to tell the customer to fix, and when to ask the service again.
 */
import type { CallbackCheckStatus } from "@/core/engagements/flow-states";
import type { ManagedPlatform } from "@/server/platforms";

/** The connection as the service shows it (the fields the check reads). */
export type CheckedConnection = {
  status: string;
  dataConnectionErrors?: { errorMessage?: string | null; statusText?: string | null; status?: string | null }[] | null;
};

export type ConnectionReading =
  /** Linked: the authorization reached the service through its callback URL. */
  | { kind: "linked" }
  /** The platform refused the redirect to the callback URL: not on the customer's app (its words). */
  | { kind: "refused"; words: string }
  /** Not authorized yet; `words`: another refusal the platform gave, if any. */
  | { kind: "waiting"; words: string | null };

/** A platform's refusal of the redirect, in any platform's words: `redirect_uri`, "redirect URI", "redirection URL"… */
const REDIRECT_REFUSAL = /redirect(ion)?[\s_-]?(uri|url)/i;

/** What the connection's state says of the round trip. */
export function readCheckedConnection(connection: CheckedConnection): ConnectionReading {
  if (connection.status === "Linked") return { kind: "linked" };
  const active = (connection.dataConnectionErrors ?? []).filter((e) => e.status !== "Resolved");
  const words = (e: (typeof active)[number]) => (e.errorMessage || e.statusText || "").trim();
  const redirect = active.find((e) => REDIRECT_REFUSAL.test(words(e)));
  if (redirect) return { kind: "refused", words: words(redirect) };
  const other = active.map(words).find(Boolean);
  return { kind: "waiting", words: other ?? null };
}

/** The check's status after a reading: a refusal stays shown until the customer tries again and it links. */
export function statusAfter(current: CallbackCheckStatus, reading: ConnectionReading): CallbackCheckStatus {
  if (current !== "waiting" && current !== "refused") return current;
  if (reading.kind === "linked") return "proven";
  if (reading.kind === "refused") return "refused";
  return current;
}

/** Whether a check is still open: the customer may authorize (again). */
export const isOpenCheck = (status: CallbackCheckStatus): boolean => status === "waiting" || status === "refused";

/** What to fix after a refusal, in the customer's words. */
export function refusalFix(callbackUrl: string): string {
  return (
    `Your app does not list the service's callback URL as a redirect URI, so the platform would not send the authorization there. ` +
    `Add ${callbackUrl} to your app's redirect URIs exactly as written (same scheme, no trailing slash), save, then open the test link again.`
  );
}

/** Whether the service should be asked again: at most once every `intervalMs` for a check. */
export function refreshDue(checkedAt: Date | null, now: Date, intervalMs: number): boolean {
  return !checkedAt || now.getTime() - checkedAt.getTime() >= intervalMs;
}

/** The throwaway company's name, in the characters the service keeps. */
export function checkCompanyName(reference: string): string {
  return `Ferry callback check ${reference}`.replace(/[^A-Za-z0-9\s\-',&@.?!]/g, "-");
}

/**
 * Where the platform keeps a few refresh tokens per user for the app (Zoho Books: 20), the round
 * trip's authorization is one of them: authorized by a user the file's companies were exported
 * with, it can push out the oldest, a migrated company's.
 */
export function tokenLimitCaveat(platform: Pick<ManagedPlatform, "name" | "refreshTokensPerUser">): string | null {
  if (!platform.refreshTokensPerUser) return null;
  return (
    `${platform.name} keeps ${platform.refreshTokensPerUser} refresh tokens per user for your app, and each authorization past that invalidates the user's oldest token. ` +
    `Authorize the round trip as a ${platform.name} user that none of the file's companies was exported with, so no migrated company's token is pushed out.`
  );
}
