/** Every API route, in one table: the server routes from it and the tests walk it. */
import { apiKeyRoutes } from "./api-keys";
import { companyRoutes } from "./companies";
import { connectionRoutes, integrationRoutes } from "./connections";
import { dataRoutes } from "./data";
import { pushRoutes } from "./push";
import { syncRoutes } from "./syncs";
import { syncSettingsRoutes } from "./sync-settings";
import type { ApiRoute } from "./types";
import { webhookRoutes } from "./webhooks";

export const API_ROUTES: readonly ApiRoute[] = [
  ...apiKeyRoutes,
  ...companyRoutes,
  ...connectionRoutes,
  ...syncRoutes,
  ...dataRoutes,
  ...pushRoutes,
  ...syncSettingsRoutes,
  ...integrationRoutes,
  ...webhookRoutes,
];
