/** Thin router for support's portfolio (server/engagements/portfolio). */
import { getPortfolio } from "@/server/engagements/portfolio/get-portfolio";
import { ZPortfolio, ZPortfolioFilter } from "@/core/engagements/portfolio-schemas";
import { createTRPCRouter, staffProcedure } from "../trpc";

export const portfolioRouter = createTRPCRouter({
  /** Every open engagement with its clock, counted, filtered, grouped and paged. */
  get: staffProcedure
    .input(ZPortfolioFilter)
    .output(ZPortfolio)
    .query(({ ctx, input }) => getPortfolio(ctx.database, input)),
});
