/** The platforms as screens show them: the six managed ones with their fields, the rest with the reason. */
import { z } from "zod";
import { MANAGED_PLATFORMS, UNMANAGED_PLATFORMS, unmanagedReason } from "./platforms";
import { PLATFORM_CATEGORIES } from "@/core/platforms/categories";

export const ZPlatformCatalog = z.object({
  managed: z.array(
    z.object({
      key: z.string(),
      name: z.string(),
      category: z.enum(PLATFORM_CATEGORIES),
      callbackUrl: z.string(),
      credentialFields: z.array(
        z.object({ name: z.string(), label: z.string(), required: z.boolean(), secret: z.boolean(), expected: z.string(), example: z.string() }),
      ),
      supportedDataTypes: z.array(z.string()),
    }),
  ),
  unmanaged: z.array(z.object({ key: z.string(), name: z.string(), reason: z.string() })),
});
export type PlatformCatalog = z.infer<typeof ZPlatformCatalog>;

/** Every platform Ferry knows, for pickers and the portal's instructions. */
export function platformCatalog(): PlatformCatalog {
  return {
    managed: MANAGED_PLATFORMS.map((p) => ({
      key: p.key,
      name: p.name,
      category: p.category,
      callbackUrl: p.callbackUrl,
      credentialFields: p.credentialFields.map(({ name, label, required, secret, expected, example }) => ({ name, label, required, secret, expected, example })),
      supportedDataTypes: [...p.supportedDataTypes],
    })),
    unmanaged: UNMANAGED_PLATFORMS.map((p) => ({ ...p, reason: unmanagedReason(p.key) ?? "" })),
  };
}
