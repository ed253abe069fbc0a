/** Request and response schemas of the last mile's procedures (both audiences read; staff steer). */
import { ZHypercareDays, ZLastMileView } from "@/core/migration/last-mile-schemas";
import { engagementInput } from "./shared.types";

export const ZLastMileResponse = ZLastMileView;
export const ZSetHypercareDaysRequest = engagementInput.extend(ZHypercareDays.shape);
