/**
 * A platform's refusal of a company's tokens, read for the words Ferry says about it: its family
 * (server/platforms/token-refusals.ts decides it) and, within the family, the case the platform
 * named, in a few neutral words that fit both support's advice (advice.ts) and what the customer
 * is told in the handover report (handover/customer-actions.ts). Pure.
 */
import { tokenRefusalFamily, type TokenRefusalFamily } from "@/server/platforms";

export type TokenRefusalReading = {
  /** null: the words name no family (e.g. a real platform's bare `invalid_grant`). */
  family: TokenRefusalFamily | null;
  /** The case within the family, in words ("issued to another OAuth app"); null without a family. */
  case: string | null;
};

/**
 * The cases each family's words tell apart, most specific first ("was revoked: the end customer
 * uninstalled the app" is an uninstall). A family whose words match no case here gets its
 * family's general words, so a new wording on a platform still reads as its family.
 */
const CASES: readonly { family: TokenRefusalFamily; pattern: RegExp; words: string }[] = [
  { family: "never_valid", pattern: /not one this platform issued/i, words: "not issued by the platform" },
  { family: "never_valid", pattern: /\bmalformed\b/i, words: "malformed: not the platform's token shape" },
  { family: "never_valid", pattern: /another OAuth app|client id mismatch/i, words: "issued to another OAuth app" },
  { family: "never_valid", pattern: /belong to another|belong to different accounts/i, words: "of another account than the row names" },
  { family: "rotated", pattern: /already used|\brotated\b/i, words: "already used: the old app refreshed them after the export" },
  { family: "rotated", pattern: /already exchanged/i, words: "already exchanged for new tokens" },
  { family: "revoked", pattern: /\buninstalled\b/i, words: "the end customer uninstalled the app" },
  { family: "revoked", pattern: /\brevoked\b/i, words: "the end customer disconnected the app" },
  { family: "revoked", pattern: /\bexpired\b/i, words: "expired" },
];

/** Each family in a few words (what the tokens are), for the screens and the advice. */
export const FAMILY_WORDS: Record<TokenRefusalFamily, string> = {
  never_valid: "never valid for this app and account",
  rotated: "replaced by newer tokens",
  revoked: "revoked or expired",
};

/** Reads the platform's words (its error text, the stored account of the failure…; empty ones skipped). */
export function readTokenRefusal(texts: readonly (string | null | undefined)[]): TokenRefusalReading {
  const text = texts.filter((t): t is string => !!t?.trim()).join(" ");
  const family = tokenRefusalFamily(text);
  if (!family) return { family: null, case: null };
  const named = CASES.find((c) => c.family === family && c.pattern.test(text));
  return { family, case: named?.words ?? FAMILY_WORDS[family] };
}
