/** A CSV cell value: strings are quoted when needed, numbers written as is, null/undefined empty. */
export type CsvValue = string | number | boolean | null | undefined;

/** Options of {@link toCsv}. */
export interface CsvOptions {
  /**
   * Prefix string cells that start with `=`, `+`, `-`, `@`, tab or carriage return with a `'`, so
   * spreadsheet programs do not run them as formulas (CSV injection). Numbers are never changed.
   * @default false
   */
  neutralizeFormulas?: boolean;
}

function cell(value: CsvValue, options: CsvOptions): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  let text = String(value);
  if (options.neutralizeFormulas && typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Writes RFC 4180 CSV: a header row, then one row per record, CRLF line ends. Cells containing a
 * comma, quote, line break or leading/trailing space are quoted, with quotes doubled.
 *
 * @example
 * ```ts
 * toCsv(["flow", "queries"], [{ flow: 'a,"b"', queries: 3 }]) // 'flow,queries\r\n"a,""b""",3\r\n'
 * ```
 */
export function toCsv(columns: readonly string[], rows: ReadonlyArray<Record<string, CsvValue>>, options: CsvOptions = {}): string {
  let out = `${columns.map((c) => cell(c, options)).join(",")}\r\n`;
  for (const row of rows) out += `${columns.map((c) => cell(row[c], options)).join(",")}\r\n`;
  return out;
}

/**
 * Parses RFC 4180 CSV (quoted cells, doubled quotes, CRLF or LF line ends) into rows of cells.
 * A final line end does not add an empty row.
 *
 * @example
 * ```ts
 * parseCsv('a,b\r\n"x,""y""",2\r\n') // [["a", "b"], ['x,"y"', "2"]]
 * ```
 * @throws SyntaxError on an unterminated quoted cell or text after a closing quote.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let value = "";
  let i = 0;
  let atCellStart = true;
  const endCell = () => {
    row.push(value);
    value = "";
    atCellStart = true;
  };
  while (i < text.length) {
    const char = text[i]!;
    if (atCellStart && char === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new SyntaxError("unterminated quoted CSV cell");
        const c = text[i]!;
        if (c === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += c;
        i++;
      }
      const after = text[i];
      if (after !== undefined && after !== "," && after !== "\r" && after !== "\n") throw new SyntaxError("text after a closing quote in CSV");
      atCellStart = false;
      continue;
    }
    atCellStart = false;
    if (char === ",") {
      endCell();
      i++;
    } else if (char === "\r" || char === "\n") {
      endCell();
      rows.push(row);
      row = [];
      i += char === "\r" && text[i + 1] === "\n" ? 2 : 1;
    } else {
      value += char;
      i++;
    }
  }
  if (!atCellStart || row.length > 0) {
    endCell();
    rows.push(row);
  }
  return rows;
}
