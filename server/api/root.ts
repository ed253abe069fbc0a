/** The app's tRPC router: one thin router per domain. */
import { createCallerFactory, createTRPCRouter } from "./trpc";
import { invitationsRouter, meRouter, organizationsRouter, outboxRouter, usersRouter } from "./routers/accounts";
import { engagementsRouter, portalRouter } from "./routers/engagements";
import { handoverRouter, portalHandoverRouter } from "./routers/handover";
import { platformsRouter } from "./routers/platforms";
import { targetsRouter } from "./routers/targets";
import { portalTestsRouter, testsRouter } from "./routers/tests";

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
  handover: handoverRouter,
  portalHandover: portalHandoverRouter,
  tests: testsRouter,
  portalTests: portalTestsRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side callers (RSC prefetch, tests). */
export const createCaller = createCallerFactory(appRouter);
