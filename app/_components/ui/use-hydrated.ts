"use client";
import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False during server rendering and hydration, true once React runs in the browser. Controls
 * that do nothing without JavaScript stay disabled until then, so an early click is not lost
 * (and a form is never submitted natively, with its fields in the URL).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
