import { env } from "@/server/env";
import { keyRingFrom, type KeyRing } from "./secrets";

let ring: KeyRing | undefined;

/** The process's encryption keys, from FERRY_ENCRYPTION_KEY (+ FERRY_ENCRYPTION_OLD_KEYS). */
export function appKeyRing(): KeyRing {
  ring ??= keyRingFrom(env().FERRY_ENCRYPTION_KEY, env().FERRY_ENCRYPTION_OLD_KEYS);
  return ring;
}
