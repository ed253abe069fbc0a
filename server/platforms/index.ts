export * from "@/core/platforms/categories";
export * from "@/core/platforms/data-types";
export * from "./platforms";
export * from "./credentials";
export * from "./company-name";
export * from "./sync-timing";
export * from "./token-refusals";
