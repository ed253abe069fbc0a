/** The route type every API route module exports. */
import type { ApiContext } from "../context";
import type { ApiResponse } from "../http";
import type { Route } from "../router";

export type ApiRoute = Route<ApiContext, ApiResponse | Promise<ApiResponse>>;
