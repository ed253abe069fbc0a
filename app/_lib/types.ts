/** Shapes of tRPC outputs as the UI sees them (types only; nothing server-side reaches the bundle). */
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type RouterInputs = inferRouterInputs<AppRouter>;

export type EngagementDetail = RouterOutputs["engagements"]["get"];
export type StepView = EngagementDetail["steps"][number];
export type StepActionView = StepView["actions"][number];
export type { StepNumber } from "@/core/engagements/states";
export type TimelineEntry = RouterOutputs["engagements"]["timeline"][number];
export type EngagementListItem = RouterOutputs["engagements"]["list"]["items"][number];
export type EngagementStatus = EngagementDetail["status"];
export type Role = RouterOutputs["me"]["get"]["role"];
export type InvitationStatus = RouterOutputs["invitations"]["list"][number]["status"];
export type IntakeView = RouterOutputs["intake"]["get"];
export type SubmissionView = NonNullable<IntakeView["current"]>;
export type IntakeItemsPage = RouterOutputs["intake"]["items"];
export type WindowPlan = RouterOutputs["windows"]["plan"];
export type WindowView = WindowPlan["windows"][number];
export type EstimateView = NonNullable<WindowPlan["estimate"]>;
export type ConfirmationsView = RouterOutputs["confirmations"]["get"];
export type CallbackCheckView = RouterOutputs["confirmations"]["callbackCheck"];
/** What the token-file routes answer for a check (it is not a tRPC procedure: files go up to 20 MB). */
export type { TokenFileCheck } from "@/core/engagements/intake-schemas";
export type SupplementaryView = RouterOutputs["supplementary"]["get"];
export type SupplementaryFileView = NonNullable<SupplementaryView["current"]>;
export type WaitingCompanyView = SupplementaryView["waiting"]["companies"][number];
/** What the supplementary file's check route answers (the token file's check, and the company each row names). */
export type { SupplementaryCheck } from "@/core/migration/supplementary-schemas";
