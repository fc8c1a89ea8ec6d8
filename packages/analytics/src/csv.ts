/** A CSV cell value: strings are quoted when needed, numbers written as is, null/undefined empty. */
export type CsvValue = string | number | boolean | null | undefined;

function cell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Writes RFC 4180 CSV: a header row, then one row per record, CRLF line ends. Cells containing a
 * comma, quote, line break or leading/trailing space are quoted, with quotes doubled; string cells
 * that start like a spreadsheet formula (`=`, `+`, `-`, `@`, tab, CR) get a `'` prefix (CSV injection).
 *
 * @example
 * ```ts
 * toCsv(["flow", "queries"], [{ flow: 'a,"b"', queries: 3 }]) // 'flow,queries\r\n"a,""b""",3\r\n'
 * ```
 */
export function toCsv(columns: readonly string[], rows: ReadonlyArray<Record<string, CsvValue>>): string {
  let out = `${columns.map((c) => cell(c)).join(",")}\r\n`;
  for (const row of rows) out += `${columns.map((c) => cell(row[c])).join(",")}\r\n`;
  return out;
}
