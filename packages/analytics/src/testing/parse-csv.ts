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
