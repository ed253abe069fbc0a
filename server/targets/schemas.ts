/** The shapes of service targets as the app shows them (API keys only ever masked). */
import { z } from "zod";
import { SERVICE_TARGET_KINDS } from "./kinds";

export const ZServiceTargetKind = z.enum(SERVICE_TARGET_KINDS);

export const ZServiceTarget = z.object({
  id: z.string(),
  name: z.string(),
  baseUrl: z.string(),
  kind: ZServiceTargetKind,
  apiKeyMasked: z.string(),
  createdAt: z.date(),
});
export type ServiceTargetView = z.infer<typeof ZServiceTarget>;
