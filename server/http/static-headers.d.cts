/** Types of server/http/static-headers.cjs. */
declare const headers: {
  STATIC_SECURITY_HEADERS: readonly { key: string; value: string }[];
  API_CONTENT_SECURITY_POLICY: string;
};
export = headers;
