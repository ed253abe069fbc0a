/** Thin router for support's portfolio (server/engagements/portfolio). */
import { getPortfolio } from "@/server/engagements/portfolio/get-portfolio";
import { getWorkload } from "@/server/engagements/portfolio/get-workload";
import { ZPortfolio, ZPortfolioFilter, ZWorkload } from "@/core/engagements/portfolio-schemas";
import { createTRPCRouter, staffProcedure } from "../trpc";

export const portfolioRouter = createTRPCRouter({
  /** Every open engagement with its clock, counted, filtered, grouped and paged. */
  get: staffProcedure
    .input(ZPortfolioFilter)
    .output(ZPortfolio)
    .query(({ ctx, input }) => getPortfolio(ctx.database, input)),
  /** Each staff member's load: open engagements by risk, support's moves, live runs, windows this week. */
  workload: staffProcedure.output(ZWorkload).query(({ ctx }) => getWorkload(ctx.database)),
});
