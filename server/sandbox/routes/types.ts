/** The route type every API route module exports. */
import type { ApiContext } from "../context";
import type { ApiResponse } from "../http/io";
import type { Route } from "../http/router";

export type ApiRoute = Route<ApiContext, ApiResponse | Promise<ApiResponse>>;
