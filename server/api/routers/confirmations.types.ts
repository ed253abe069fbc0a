/** Request and response schemas of steps 3 and 4's procedures. */
import { ZCallbackCheckView, ZConfirmation, ZConfirmationsView } from "@/core/engagements/confirm-schemas";
import { ZStepActionResponse } from "./engagements.types";

export const ZConfirmationsResponse = ZConfirmationsView;
export const ZConfirmRequest = ZConfirmation;
export const ZConfirmResponse = ZStepActionResponse;
export const ZCallbackCheckResponse = ZCallbackCheckView;
