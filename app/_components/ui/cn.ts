/** Joins class names, dropping falsy ones. */
export { clsx as cn } from "clsx";
