/** Request and response schemas of the service-target procedures. */
import { z } from "zod";
import { ZServiceTarget, ZServiceTargetKind } from "@/server/targets/schemas";

export const ZListTargetsResponse = z.array(ZServiceTarget);

export const ZCreateTargetRequest = z.object({
  name: z.string().trim().min(1, "Name the target, e.g. Production").max(80),
  baseUrl: z.string().trim().min(1, "Enter the base URL, e.g. https://api.codat.io").max(300),
  apiKey: z.string().trim().min(1, "Enter the API key.").max(500),
  kind: ZServiceTargetKind.default("service"),
});
export const ZCreateTargetResponse = z.object({ id: z.string() });

export const ZAssignTargetRequest = z.object({ serviceTargetId: z.string().min(1, "Choose a service target.") });
