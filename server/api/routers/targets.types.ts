/** Request and response schemas of the service-target procedures. */
import { z } from "zod";
import { MAX_DAILY_QUOTA, MAX_REQUESTS_PER_MINUTE, ZConnectionTest, ZServiceTarget, ZServiceTargetKind, ZTargetChoices } from "@/core/targets/schemas";

export const ZListTargetsResponse = z.array(ZServiceTarget);

const ZTargetId = z.string().min(1).max(64);
const ZTargetName = z.string().trim().min(1, "Name the target, e.g. Production — Acme Lending").max(80, "Keep the name to 80 characters.");
const ZApiKey = z.string().trim().min(1, "Enter the API key.").max(500, "An API key is at most 500 characters.");

/**
 * A known limit an admin may set on a target: a whole number, or empty (null) for the service's
 * published figure. Form fields send text, API callers numbers; both arrive here.
 */
const knownLimit = (what: string, max: number) => {
  const message = `${what} is a whole number from 1 to ${max.toLocaleString("en-GB")}, or empty for the service's published limit.`;
  return z.preprocess(
    (v) => (v === undefined || v === null || (typeof v === "string" && v.trim() === "") ? null : typeof v === "string" ? Number(v.trim().replace(/[,_\s]/g, "")) : v),
    z.number({ message }).int(message).min(1, message).max(max, message).nullable(),
  );
};
export const ZRequestsPerMinute = knownLimit("Requests per minute", MAX_REQUESTS_PER_MINUTE);
export const ZDailyQuota = knownLimit("The daily quota", MAX_DAILY_QUOTA);

export const ZCreateTargetRequest = z.object({
  name: ZTargetName,
  baseUrl: z.string().trim().min(1, "Enter the base URL, e.g. https://api.codat.io").max(300),
  apiKey: ZApiKey,
  kind: ZServiceTargetKind.default("service"),
  /** Whose account it is; empty: unassigned (no engagement can use it until an admin assigns it). */
  organizationId: z
    .string()
    .max(64)
    .nullish()
    .transform((v) => v || null),
  requestsPerMinute: ZRequestsPerMinute.optional(),
  dailyQuota: ZDailyQuota.optional(),
});
export const ZCreateTargetResponse = z.object({ id: z.string() });

export const ZRenameTargetRequest = z.object({ targetId: ZTargetId, name: ZTargetName });
export const ZSetTargetLimitsRequest = z.object({ targetId: ZTargetId, requestsPerMinute: ZRequestsPerMinute, dailyQuota: ZDailyQuota });
export const ZReplaceTargetKeyRequest = z.object({ targetId: ZTargetId, apiKey: ZApiKey });
export const ZReplaceTargetKeyResponse = z.object({ apiKeyMasked: z.string() });
export const ZTargetRequest = z.object({ targetId: ZTargetId });
export const ZAssignOrganizationRequest = z.object({ targetId: ZTargetId, organizationId: z.string().min(1, "Choose an organisation.").max(64) });
export const ZTestConnectionResponse = ZConnectionTest;

/** Pointing an engagement at a target. */
export const ZAssignTargetRequest = z.object({
  serviceTargetId: z.string().min(1, "Choose a service target."),
  /** Support's explicit choice to start the companies already made on the current target over on this one. */
  startOver: z.boolean().optional(),
});
export const ZTargetChoicesResponse = ZTargetChoices;
