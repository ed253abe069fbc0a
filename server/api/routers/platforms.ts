/** The managed platforms, and why others have no managed migration. */
import { platformCatalog } from "@/server/platforms/catalog";
import { createTRPCRouter, signedInProcedure } from "../trpc";
import { ZListPlatformsResponse } from "./platforms.types";

export const platformsRouter = createTRPCRouter({
  /** The six managed platforms with their fields; the rest with the reason they are not managed. */
  list: signedInProcedure.output(ZListPlatformsResponse).query(() => platformCatalog()),
});
