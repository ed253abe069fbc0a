/** Counts in words for timelines and mail: "1 company", "2,500 companies". */
export function countOf(n: number, one: string, many: string): string {
  return `${n.toLocaleString("en-GB")} ${n === 1 ? one : many}`;
}

/** "3 companies". */
export const companiesText = (n: number) => countOf(n, "company", "companies");
/** "1 warning". */
export const warningsText = (n: number) => countOf(n, "warning", "warnings");
