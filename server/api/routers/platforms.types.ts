/** Response schema of the platform procedures. */
import { ZPlatformCatalog } from "@/server/platforms/catalog";

export const ZListPlatformsResponse = ZPlatformCatalog;
