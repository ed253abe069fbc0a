import { createRequestContext } from "@/server/api/context";
import { appConfig } from "@/server/config";
import { handleTrpcRequest } from "@/server/api/http";

const handler = (req: Request) =>
  handleTrpcRequest(req, { appOrigin: new URL(appConfig().appUrl).origin, createContext: () => createRequestContext(req.headers) });

export { handler as GET, handler as POST };
