/** The app's tRPC router: one thin router per domain. */
import { createCallerFactory, createTRPCRouter } from "./trpc";
import { invitationsRouter, meRouter, organizationsRouter, outboxRouter, usersRouter } from "./routers/accounts";
import { engagementsRouter, portalRouter } from "./routers/engagements";
import { bulkRouter, portalBulkRouter } from "./routers/bulk";
import { confirmationsRouter } from "./routers/confirmations";
import { handoverRouter, portalHandoverRouter } from "./routers/handover";
import { intakeRouter } from "./routers/intake";
import { platformsRouter } from "./routers/platforms";
import { targetsRouter } from "./routers/targets";
import { portalTestsRouter, testsRouter } from "./routers/tests";
import { windowsRouter } from "./routers/windows";

export const appRouter = createTRPCRouter({
  me: meRouter,
  platforms: platformsRouter,
  organizations: organizationsRouter,
  users: usersRouter,
  invitations: invitationsRouter,
  outbox: outboxRouter,
  targets: targetsRouter,
  engagements: engagementsRouter,
  portal: portalRouter,
  intake: intakeRouter,
  windows: windowsRouter,
  confirmations: confirmationsRouter,
  handover: handoverRouter,
  portalHandover: portalHandoverRouter,
  tests: testsRouter,
  portalTests: portalTestsRouter,
  bulk: bulkRouter,
  portalBulk: portalBulkRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side callers (RSC prefetch, tests). */
export const createCaller = createCallerFactory(appRouter);
