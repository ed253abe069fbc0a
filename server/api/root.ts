/** The app's tRPC router: one thin router per domain, its reads shared by the console and the portal. */
import { createCallerFactory, createTRPCRouter } from "./trpc";
import { invitationsRouter, meRouter, organizationsRouter, outboxRouter, usersRouter } from "./routers/accounts";
import { engagementsRouter } from "./routers/engagements";
import { bulkRouter } from "./routers/bulk";
import { confirmationsRouter } from "./routers/confirmations";
import { handoverRouter } from "./routers/handover";
import { intakeRouter } from "./routers/intake";
import { lastMileRouter } from "./routers/last-mile";
import { portfolioRouter } from "./routers/portfolio";
import { calendarRouter } from "./routers/calendar";
import { platformsRouter } from "./routers/platforms";
import { requestsRouter } from "./routers/requests";
import { supplementaryRouter } from "./routers/supplementary";
import { targetsRouter } from "./routers/targets";
import { testsRouter } from "./routers/tests";
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
  requests: requestsRouter,
  intake: intakeRouter,
  windows: windowsRouter,
  confirmations: confirmationsRouter,
  handover: handoverRouter,
  lastMile: lastMileRouter,
  portfolio: portfolioRouter,
  calendar: calendarRouter,
  tests: testsRouter,
  bulk: bulkRouter,
  supplementary: supplementaryRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side callers (RSC prefetch, tests). */
export const createCaller = createCallerFactory(appRouter);
