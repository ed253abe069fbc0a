/** The managed platforms, and why others have no managed migration. */
import { z } from "zod";
import { MANAGED_PLATFORMS, UNMANAGED_PLATFORMS, unmanagedReason } from "@/server/platforms";
import { createTRPCRouter, signedInProcedure } from "../trpc";

const ZPlatforms = z.object({
  managed: z.array(
    z.object({
      key: z.string(),
      name: z.string(),
      category: z.enum(["accounting", "invoicing", "commerce"]),
      callbackUrl: z.string(),
      credentialFields: z.array(
        z.object({ name: z.string(), label: z.string(), required: z.boolean(), secret: z.boolean(), expected: z.string(), example: z.string() }),
      ),
      supportedDataTypes: z.array(z.string()),
    }),
  ),
  unmanaged: z.array(z.object({ key: z.string(), name: z.string(), reason: z.string() })),
});

export const platformsRouter = createTRPCRouter({
  /** The six managed platforms with their fields; the rest with the reason they are not managed. */
  list: signedInProcedure.output(ZPlatforms).query(() => ({
    managed: MANAGED_PLATFORMS.map((p) => ({
      key: p.key,
      name: p.name,
      category: p.category,
      callbackUrl: p.callbackUrl,
      credentialFields: p.credentialFields.map(({ name, label, required, secret, expected, example }) => ({
        name,
        label,
        required,
        secret,
        expected,
        example,
      })),
      supportedDataTypes: [...p.supportedDataTypes],
    })),
    unmanaged: UNMANAGED_PLATFORMS.map((p) => ({ ...p, reason: unmanagedReason(p.key) ?? "" })),
  })),
});
