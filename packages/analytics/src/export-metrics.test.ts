import { describe, expect, it } from "vitest";
import { METRICS_COLUMNS } from "./index.js";
import { parseCsv } from "./test.js";
import { exportMetrics, type MetricsRow } from "./export-metrics.js";
import { toCsv } from "./csv.js";
import { createTrafficGenerator } from "./test.js";
import { runScenario } from "../test/scenario.js";

/** A CSV row back to a metrics row: numbers as numbers, empty cells as null. */
function fromCsv(header: string[], cells: string[]): Record<string, string | number | null> {
  return Object.fromEntries(header.map((name, i) => [name, name === "group" ? cells[i]! : cells[i] === "" ? null : Number(cells[i])]));
}

describe("exportMetrics", () => {
  it("exports per-flow rows whose JSON and CSV both round-trip", async () => {
    const scenario = await runScenario();
    const events = await scenario.auditLog.query({ limit: 100_000 });
    const json = exportMetrics({ events, feedback: scenario.feedback, range: "1h", now: scenario.end, format: "json", groupBy: "flow" });
    expect(json.contentType).toBe("application/json");
    const parsed = JSON.parse(json.body) as { groupBy: string; columns: string[]; rows: MetricsRow[] };
    expect(parsed.groupBy).toBe("flow");
    expect(parsed.columns).toEqual([...METRICS_COLUMNS]);
    expect(parsed.rows).toEqual(json.rows);
    expect(json.rows.map((r) => r.group)).toEqual(["flowise:flaky", "flowise:docs", "langflow:primary", "flowise:fast", "langflow:backup"]);
    expect(json.rows[0]).toEqual({
      group: "flowise:flaky",
      queries: 40,
      answered: 30,
      failed: 0,
      success_rate: 1,
      cache_hits: 0,
      attempts: 40,
      attempt_failures: 10,
      attempt_success_rate: 0.75,
      attempt_p50_ms: 6000,
      attempt_p95_ms: 11000,
      query_p50_ms: json.rows[0]!.query_p50_ms,
      query_p95_ms: json.rows[0]!.query_p95_ms,
      fallbacks_from: 10,
      fallbacks_to: 0,
      feedback_count: 4,
      feedback_mean: -0.625,
    });
    expect(json.rows.find((r) => r.group === "flowise:fast")).toMatchObject({ queries: 15, answered: 15, cache_hits: 5, fallbacks_to: 10, attempt_p95_ms: 140 });

    const csv = exportMetrics({ events, feedback: scenario.feedback, range: "1h", now: scenario.end, format: "csv", groupBy: "flow" });
    expect(csv.contentType).toBe("text/csv");
    const [header, ...rows] = parseCsv(csv.body);
    expect(header).toEqual([...METRICS_COLUMNS]);
    expect(rows.map((cells) => fromCsv(header!, cells))).toEqual(json.rows);
  });

  it("groups by backend and by intent", async () => {
    const scenario = await runScenario();
    const events = await scenario.auditLog.query({ limit: 100_000 });
    const byBackend = exportMetrics({ events, range: "1h", now: scenario.end, groupBy: "backend" });
    expect(byBackend.rows.map((r) => [r.group, r.attempts, r.attempt_failures])).toEqual([
      ["flowise", 70, 10],
      ["langflow", 30, 10],
    ]);
    const byIntent = exportMetrics({ events, range: "1h", now: scenario.end, groupBy: "intent", format: "csv" });
    expect(byIntent.rows.map((r) => [r.group, r.queries, r.answered, r.failed, r.fallbacks_from])).toEqual([
      ["technical-analysis", 40, 40, 0, 10],
      ["data-processing", 20, 20, 0, 10],
      ["rag-retrieval", 20, 20, 0, 0],
      ["conversation", 6, 0, 6, 0],
      ["unclassified", 5, 5, 0, 0],
    ]);
    const [, ...rows] = parseCsv(byIntent.body);
    expect(rows.map((cells) => cells[0])).toEqual(byIntent.rows.map((r) => r.group));
  });

  it("escapes group names with commas, quotes and line breaks", () => {
    const nasty = 'flowise:a,"b"\nc';
    const traffic = createTrafficGenerator({ flows: [{ flowId: nasty, intents: ["conversation"] }], start: Date.UTC(2025, 0, 1) });
    traffic.run(3, () => ({ intent: "conversation" }));
    const csv = exportMetrics({ events: traffic.events, range: "24h", now: traffic.now(), format: "csv" });
    expect(csv.body.split("\r\n")[1]!.startsWith('"flowise:a,""b""\nc",3,')).toBe(true);
    const [, row] = parseCsv(csv.body);
    expect(row![0]).toBe(nasty);
    expect(row![1]).toBe("3");
  });
});

describe("CSV", () => {
  it("round-trips awkward cells", () => {
    const rows = [
      { a: "plain", b: 1 },
      { a: 'quote " inside', b: -2.5 },
      { a: "comma, and\r\nCRLF", b: null },
      { a: " padded ", b: 0 },
      { a: "", b: undefined },
    ];
    const text = toCsv(["a", "b"], rows);
    expect(parseCsv(text)).toEqual([
      ["a", "b"],
      ["plain", "1"],
      ['quote " inside', "-2.5"],
      ["comma, and\r\nCRLF", ""],
      [" padded ", "0"],
      ["", ""],
    ]);
  });

  it("neutralises spreadsheet formulas in string cells", () => {
    expect(toCsv(["a"], [{ a: "=HYPERLINK(1)" }])).toBe("a\r\n'=HYPERLINK(1)\r\n");
    expect(toCsv(["a"], [{ a: -1 }])).toBe("a\r\n-1\r\n");
    expect(toCsv(["group", "queries", "rate"], [{ group: '=HYPERLINK("x")', queries: 3, rate: null }, { group: "a,b", queries: Number.NaN, rate: 0.5 }])).toBe(
      'group,queries,rate\r\n"\'=HYPERLINK(""x"")",3,\r\n"a,b",,0.5\r\n',
    );
  });

  it("rejects malformed CSV", () => {
    expect(() => parseCsv('"open')).toThrow(SyntaxError);
    expect(() => parseCsv('"a"b')).toThrow(SyntaxError);
    expect(parseCsv("a,b\nc,d")).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
  });
});
