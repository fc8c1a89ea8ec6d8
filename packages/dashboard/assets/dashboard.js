// @ts-check
/**
 * Agentic Flywheel operator dashboard — the page's only script (an ES module, no build step).
 *
 * Every piece of data is inserted with text nodes / textContent, never as markup: backend
 * replies, questions and tool descriptions may contain HTML. The page's Content-Security-Policy
 * enforces Trusted Types, so an HTML sink would throw.
 *
 * Auth: when the gateway requires a bearer token, enter it in the header form (or open the page
 * with `#token=...`); it is kept in sessionStorage and sent as `Authorization: Bearer <token>` on
 * every fetch, including the live feed, which is read with fetch streaming (not EventSource, which
 * cannot send headers), so the token never appears in a URL.
 */

const SVG_NS = "http://www.w3.org/2000/svg";
const TOKEN_KEY = "afw.dashboard.token";
const MAX_FEED_ROWS = 100;
const REFRESH_DEBOUNCE_MS = 2000;
const PERIODIC_REFRESH_MS = 30_000;

/** @param {string} name */
function meta(name) {
  const element = document.querySelector(`meta[name="${name}"]`);
  return element instanceof HTMLMetaElement ? element.content : "";
}

const apiPath = meta("afw-api-path") || "/api";
const redacted = meta("afw-redacted") === "true";

/** @type {{ token: string, flows: Array<{ id: string, name: string }>, cacheFlows: string[], stream: AbortController | undefined, retryMs: number, authWaiters: Array<() => void>, refreshTimers: Map<string, number> }} */
const state = {
  token: "",
  flows: [],
  cacheFlows: [],
  stream: undefined,
  retryMs: 3000,
  authWaiters: [],
  refreshTimers: new Map(),
};

// ---------------------------------------------------------------------------------------------
// DOM helpers (text only)

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing #${id}`);
  return element;
}

/** @typedef {string | number | Node | null | undefined | false | ReadonlyArray<any>} Child */

/**
 * @param {Element} parent
 * @param {Child[]} children
 */
function appendChildren(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) appendChildren(parent, child);
    else if (typeof child === "string" || typeof child === "number") parent.append(document.createTextNode(String(child)));
    else if (child instanceof Node) parent.append(child);
  }
}

/**
 * Creates an element. `attributes` are set with setAttribute (never event handlers); children
 * are appended as text nodes or elements.
 *
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | number | boolean | undefined | null>} [attributes]
 * @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) throw new Error("event handler attributes are not allowed");
    if (name === "class") element.className = String(value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  appendChildren(element, children);
  return element;
}

/**
 * @param {Element} element
 * @param {Child[]} children
 */
function replaceContent(element, ...children) {
  element.replaceChildren();
  appendChildren(element, children);
  element.removeAttribute("aria-busy");
}

/** @param {string} text */
function muted(text) {
  return h("p", { class: "muted" }, text);
}

function notConfigured() {
  return h("p", { class: "muted not-configured" }, "Not configured on this gateway.");
}

// ---------------------------------------------------------------------------------------------
// Formatting

/** @param {number | undefined | null} ms */
function formatMs(ms) {
  if (ms === undefined || ms === null || !Number.isFinite(ms)) return "—";
  if (ms >= 10_000) return `${(ms / 1000).toFixed(0)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms)} ms`;
}

/** @param {number | undefined | null} ratio */
function formatPercent(ratio) {
  if (ratio === undefined || ratio === null || !Number.isFinite(ratio)) return "—";
  return `${(ratio * 100).toFixed(ratio >= 0.995 || ratio === 0 ? 0 : 1)}%`;
}

/** @param {string | number | undefined} value */
function formatTime(value) {
  if (value === undefined) return "—";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? "—" : date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
}

/** @param {string | number | undefined} value */
function isoOf(value) {
  if (value === undefined) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** @param {string} flowId */
function shortFlow(flowId) {
  const index = flowId.indexOf(":");
  return index >= 0 ? flowId.slice(index + 1) : flowId;
}

// ---------------------------------------------------------------------------------------------
// Charts: inline SVG sparklines built with createElementNS (no markup strings)

/**
 * @param {Array<number | undefined>} values
 * @param {{ label: string, format: (value: number) => string, min?: number, max?: number, width?: number, height?: number }} options
 */
function sparkline(values, options) {
  const width = options.width ?? 120;
  const height = options.height ?? 32;
  const pad = 3;
  /** @type {number[]} */
  const defined = values.filter((value) => typeof value === "number" && Number.isFinite(value)).map(Number);
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", String(width));
  svg.setAttribute("height", String(height));
  svg.setAttribute("class", "sparkline");
  svg.setAttribute("role", "img");
  const last = defined.at(-1);
  const description =
    defined.length === 0
      ? `${options.label}: no data in the last hour`
      : `${options.label}: latest ${options.format(last ?? 0)}, lowest ${options.format(Math.min(...defined))}, highest ${options.format(Math.max(...defined))}`;
  svg.setAttribute("aria-label", description);
  const title = document.createElementNS(SVG_NS, "title");
  title.textContent = description;
  svg.append(title);
  const baseline = document.createElementNS(SVG_NS, "line");
  baseline.setAttribute("x1", "0");
  baseline.setAttribute("x2", String(width));
  baseline.setAttribute("y1", String(height - 1));
  baseline.setAttribute("y2", String(height - 1));
  baseline.setAttribute("class", "sparkline-baseline");
  svg.append(baseline);
  if (defined.length === 0) return svg;
  const min = options.min ?? Math.min(...defined);
  const max = Math.max(options.max ?? Math.max(...defined), min + 1e-9);
  const step = values.length > 1 ? (width - 2 * pad) / (values.length - 1) : 0;
  /** @param {number} value */
  const y = (value) => (height - pad - ((value - min) / (max - min)) * (height - 2 * pad)).toFixed(1);
  /** @type {string[][]} */
  const segments = [];
  /** @type {string[]} */
  let current = [];
  values.forEach((value, index) => {
    if (typeof value === "number" && Number.isFinite(value)) current.push(`${(pad + index * step).toFixed(1)},${y(value)}`);
    else if (current.length) {
      segments.push(current);
      current = [];
    }
  });
  if (current.length) segments.push(current);
  for (const segment of segments) {
    if (segment.length === 1) {
      const [cx, cy] = (segment[0] ?? "0,0").split(",");
      const dot = document.createElementNS(SVG_NS, "circle");
      dot.setAttribute("cx", cx ?? "0");
      dot.setAttribute("cy", cy ?? "0");
      dot.setAttribute("r", "1.8");
      dot.setAttribute("class", "sparkline-dot");
      svg.append(dot);
    } else {
      const line = document.createElementNS(SVG_NS, "polyline");
      line.setAttribute("points", segment.join(" "));
      line.setAttribute("class", "sparkline-line");
      svg.append(line);
    }
  }
  return svg;
}

/**
 * @param {string} caption
 * @param {SVGElement} chart
 */
function chartFigure(caption, chart) {
  const figure = h("figure", { class: "chart" });
  figure.append(chart);
  figure.append(h("figcaption", {}, caption));
  return figure;
}

// ---------------------------------------------------------------------------------------------
// API access

class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** @param {Record<string, string>} [extra] */
function authHeaders(extra = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json", ...extra };
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  return headers;
}

/** @param {boolean} show */
function showAuthNotice(show) {
  const notice = byId("auth-notice");
  notice.hidden = !show;
  notice.textContent = show ? "The gateway requires an access token (HTTP 401). Enter it in the Access token field above." : "";
}

/**
 * @param {string} path
 * @param {{ params?: Record<string, string | number>, method?: string, body?: unknown }} [options]
 * @returns {Promise<any>}
 */
async function api(path, options = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(options.params ?? {})) query.set(key, String(value));
  const url = `${apiPath}${path}${query.size ? `?${query}` : ""}`;
  /** @type {RequestInit} */
  const init = { headers: authHeaders(), cache: "no-store", credentials: "same-origin" };
  if (options.method) init.method = options.method;
  if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    init.headers = authHeaders({ "Content-Type": "application/json" });
  }
  const response = await fetch(url, init);
  if (response.status === 401) {
    showAuthNotice(true);
    setLiveStatus("unauthorized", "Access token required");
  }
  let body;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const error = body && typeof body === "object" && body.error ? body.error : {};
    throw new ApiError(response.status, String(error.code ?? "HTTP_ERROR"), String(error.message ?? `HTTP ${response.status}`));
  }
  if (response.status !== 401) showAuthNotice(false);
  return body;
}

/**
 * @param {Element} container
 * @param {unknown} error
 */
function showLoadError(container, error) {
  const message = error instanceof Error ? error.message : String(error);
  replaceContent(container, h("p", { class: "error-text" }, `Could not load: ${message}`));
}

// ---------------------------------------------------------------------------------------------
// Header: status and overview

/**
 * @param {"connecting" | "live" | "offline" | "unauthorized" | "unavailable"} name
 * @param {string} text
 */
function setLiveStatus(name, text) {
  const status = byId("live-status");
  status.dataset.state = name;
  status.textContent = text;
}

async function loadOverview() {
  const container = byId("overview");
  try {
    const overview = await api("/overview");
    const info = overview.info ?? {};
    byId("gateway-info").textContent = [info.name ?? "Operator dashboard", info.version ? `v${info.version}` : "", overview.redacted ? "questions redacted" : ""]
      .filter(Boolean)
      .join(" · ");
    const totals = overview.totals ?? {};
    /** @type {Array<[string, string]>} */
    const items = [];
    if (totals.backends !== undefined) items.push(["Healthy backends", `${totals.healthyBackends ?? 0} of ${totals.backends}`]);
    if (totals.openCircuits !== undefined) items.push(["Open circuits", String(totals.openCircuits)]);
    if (totals.cacheHitRate !== undefined) items.push(["Cache hit rate", formatPercent(totals.cacheHitRate)]);
    items.push(["Queries in feed", String(byId("feed-list").children.length)]);
    replaceContent(
      container,
      items.map(([term, value]) => h("div", { class: "kpi" }, h("dt", {}, term), h("dd", { id: term === "Queries in feed" ? "kpi-feed-count" : undefined }, value))),
    );
  } catch (error) {
    replaceContent(container);
    if (!(error instanceof ApiError && error.status === 401)) console.warn("overview", error);
  }
}

// ---------------------------------------------------------------------------------------------
// Backends

/** @param {string} health */
function healthBadge(health) {
  return h("span", { class: `badge health-${health}` }, `Health: ${health}`);
}

/** @param {string} circuit */
function circuitBadge(circuit) {
  return h("span", { class: `badge circuit-${circuit}` }, `Circuit: ${circuit}`);
}

/**
 * @param {any} figures
 * @param {string} label
 */
function successChart(figures, label) {
  return sparkline(
    (figures.series ?? []).map((/** @type {any} */ point) => point.successRate),
    { label: `${label} success rate`, format: formatPercent, min: 0, max: 1 },
  );
}

/**
 * @param {any} figures
 * @param {string} label
 */
function latencyChart(figures, label) {
  return sparkline(
    (figures.series ?? []).map((/** @type {any} */ point) => point.p95Ms),
    { label: `${label} p95 latency`, format: formatMs, min: 0 },
  );
}

/** @param {any} backend */
function renderBackend(backend) {
  const headingId = `backend-${String(backend.id).replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const card = h("article", { class: "card backend-card", "data-backend-id": backend.id, "aria-labelledby": headingId });
  card.append(
    h("header", { class: "card-header" }, h("h3", { id: headingId }, backend.id), h("span", { class: "kind" }, backend.kind)),
    h(
      "p",
      { class: "badges" },
      healthBadge(backend.health),
      " ",
      circuitBadge(backend.circuit),
      backend.circuitFailures ? h("span", { class: "muted small" }, ` ${backend.circuitFailures} consecutive failures`) : null,
    ),
  );
  if (backend.healthMessage) card.append(h("p", { class: "muted small" }, backend.healthMessage));
  card.append(
    h(
      "dl",
      { class: "figures" },
      h("div", {}, h("dt", {}, "p50"), h("dd", {}, formatMs(backend.latencyP50Ms))),
      h("div", {}, h("dt", {}, "p95"), h("dd", {}, formatMs(backend.latencyP95Ms))),
      h("div", {}, h("dt", {}, "Success"), h("dd", {}, formatPercent(backend.successRate))),
      h("div", {}, h("dt", {}, "Requests"), h("dd", {}, String(backend.requestCount ?? 0))),
    ),
  );
  card.append(
    h("div", { class: "charts" }, chartFigure("Success rate, last hour", successChart(backend, backend.id)), chartFigure("p95 latency, last hour", latencyChart(backend, backend.id))),
  );
  const flows = backend.flows ?? [];
  if (flows.length) {
    const table = h(
      "table",
      { class: "data-table flow-performance" },
      h("caption", {}, `Flows of ${backend.id}`),
      h(
        "thead",
        {},
        h("tr", {}, h("th", { scope: "col" }, "Flow"), h("th", { scope: "col" }, "Requests"), h("th", { scope: "col" }, "Success"), h("th", { scope: "col" }, "p50"), h("th", { scope: "col" }, "p95"), h("th", { scope: "col" }, "Success, last hour")),
      ),
    );
    const body = h("tbody");
    for (const flow of flows) {
      const chartCell = h("td");
      chartCell.append(sparkline((flow.series ?? []).map((/** @type {any} */ point) => point.successRate), { label: `${flow.flowId} success rate`, format: formatPercent, min: 0, max: 1, width: 90, height: 22 }));
      body.append(
        h(
          "tr",
          {},
          h("th", { scope: "row" }, shortFlow(flow.flowId)),
          h("td", { class: "num" }, String(flow.requestCount ?? 0)),
          h("td", { class: "num" }, formatPercent(flow.successRate)),
          h("td", { class: "num" }, formatMs(flow.latencyP50Ms)),
          h("td", { class: "num" }, formatMs(flow.latencyP95Ms)),
          chartCell,
        ),
      );
    }
    table.append(body);
    card.append(h("div", { class: "table-scroll" }, table));
  }
  return card;
}

async function loadBackends() {
  const container = byId("backends-body");
  try {
    const body = await api("/backends");
    if (!body.configured) return replaceContent(container, notConfigured());
    if (!body.backends.length) return replaceContent(container, muted("No backends configured."));
    replaceContent(container, h("div", { class: "cards" }, body.backends.map(renderBackend)));
  } catch (error) {
    showLoadError(container, error);
  }
}

// ---------------------------------------------------------------------------------------------
// Flows

async function loadFlows() {
  const container = byId("flows-body");
  try {
    const body = await api("/flows");
    if (!body.configured) {
      state.flows = [];
      updateFlowSelect();
      return replaceContent(container, notConfigured());
    }
    state.flows = body.flows.map((/** @type {any} */ flow) => ({ id: String(flow.id), name: String(flow.name) }));
    updateFlowSelect();
    if (!body.flows.length) return replaceContent(container, muted("No flows discovered."));
    const table = h(
      "table",
      { class: "data-table flows-table" },
      h("caption", { class: "visually-hidden" }, "Flows and the intents they serve"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Flow"), h("th", { scope: "col" }, "Backend"), h("th", { scope: "col" }, "Intents"), h("th", { scope: "col" }, "Notes"))),
    );
    const tbody = h("tbody");
    for (const flow of body.flows) {
      const notes = [];
      if (flow.generalPurpose) notes.push("general purpose");
      if (flow.cacheable === false) notes.push("not cached");
      if (flow.cacheClass) notes.push(`cache class: ${flow.cacheClass}`);
      tbody.append(
        h(
          "tr",
          { "data-flow-id": flow.id },
          h("th", { scope: "row" }, flow.name, h("span", { class: "muted small block" }, flow.id)),
          h("td", {}, flow.backendId),
          h("td", {}, h("ul", { class: "chips", "aria-label": `Intents of ${flow.name}` }, (flow.intents ?? []).map((/** @type {string} */ intent) => h("li", { class: "chip" }, intent)))),
          h("td", { class: "muted" }, notes.join(" · ") || "—"),
        ),
      );
    }
    table.append(tbody);
    replaceContent(container, h("div", { class: "table-scroll" }, table));
  } catch (error) {
    showLoadError(container, error);
  }
}

// ---------------------------------------------------------------------------------------------
// Live routing feed

/** @param {any} summary */
function questionText(summary) {
  if (summary.questionRedacted) return `[redacted] (${summary.questionLength ?? "?"} characters)`;
  if (typeof summary.question === "string") return summary.question;
  return summary.questionLength !== undefined ? `(question not recorded, ${summary.questionLength} characters)` : "(question not recorded)";
}

/** @param {string} cache */
function cacheBadge(cache) {
  const labels = /** @type {Record<string, string>} */ ({ hit: "cache hit", "semantic-hit": "semantic cache hit", miss: "cache miss", bypass: "cache bypassed", unknown: "cache —" });
  return h("span", { class: `badge cache-${cache}` }, labels[cache] ?? cache);
}

/** @param {any} summary */
function outcomeBadge(summary) {
  if (summary.outcome === "error") return h("span", { class: "badge outcome-error" }, `failed: ${summary.errorCode ?? "error"}`);
  if (summary.outcome === "pending") return h("span", { class: "badge outcome-pending" }, "in progress");
  return h("span", { class: "badge outcome-success" }, "answered");
}

/** @param {any} summary */
function renderQueryDetails(summary) {
  const details = h("div", { class: "feed-details" });
  /** @type {Array<[string, string | undefined]>} */
  const facts = [
    ["Trace id", summary.traceId],
    ["Session", summary.sessionId],
    ["Tool", summary.tool],
    ["Intent", summary.intent ? `${summary.intent} (${formatPercent(summary.confidence)}${summary.method ? `, ${summary.method}` : ""})` : undefined],
    ["Strategy", summary.strategy],
    ["First choice", summary.chosen ? `${summary.chosen.backendId} / ${shortFlow(summary.chosen.flowId)}` : undefined],
    ["Answered by", summary.answeredBy ? `${summary.answeredBy.backendId} / ${shortFlow(summary.answeredBy.flowId)}` : undefined],
    ["Latency", summary.durationMs !== undefined ? formatMs(summary.durationMs) : undefined],
    ["Error", summary.errorCode ? `${summary.errorCode}${summary.errorMessage ? `: ${summary.errorMessage}` : ""}` : undefined],
  ];
  details.append(
    h(
      "dl",
      { class: "facts" },
      facts.filter(([, value]) => value !== undefined && value !== "").map(([term, value]) => h("div", {}, h("dt", {}, term), h("dd", {}, value ?? ""))),
    ),
  );
  const candidates = summary.candidates ?? [];
  details.append(h("h4", {}, "Candidates"));
  if (candidates.length) {
    const table = h(
      "table",
      { class: "data-table candidates" },
      h("caption", { class: "visually-hidden" }, "Routing candidates with score breakdown"),
      h(
        "thead",
        {},
        h("tr", {}, ["#", "Backend", "Flow", "Score", "Flow match", "Health", "Performance", "Capability", "Note"].map((label) => h("th", { scope: "col" }, label))),
      ),
    );
    const tbody = h("tbody");
    for (const candidate of candidates) {
      const breakdown = candidate.breakdown ?? {};
      const chosen = summary.chosen && summary.chosen.flowId === candidate.flowId && summary.chosen.backendId === candidate.backendId;
      tbody.append(
        h(
          "tr",
          { class: chosen ? "chosen" : undefined },
          h("td", { class: "num" }, String(candidate.rank ?? "")),
          h("td", {}, candidate.backendId),
          h("td", {}, candidate.flowName ?? shortFlow(candidate.flowId)),
          h("td", { class: "num" }, Number(candidate.score).toFixed(3)),
          ["flow_match", "health", "performance", "capability"].map((key) => h("td", { class: "num" }, typeof breakdown[key] === "number" ? breakdown[key].toFixed(2) : "—")),
          h("td", {}, candidate.excluded ? `excluded: ${candidate.excluded}` : chosen ? "first choice" : ""),
        ),
      );
    }
    table.append(tbody);
    details.append(h("div", { class: "table-scroll" }, table));
  } else {
    details.append(muted(summary.cache === "hit" || summary.cache === "semantic-hit" ? "Served from the cache; no routing needed." : "No routing decision recorded."));
  }
  details.append(h("h4", {}, "Attempts"));
  const attempts = summary.attempts ?? [];
  details.append(
    attempts.length
      ? h(
          "ol",
          { class: "attempts" },
          attempts.map((/** @type {any} */ attempt) =>
            h(
              "li",
              { class: `attempt attempt-${attempt.outcome}` },
              `${attempt.backendId} / ${shortFlow(attempt.flowId)} (attempt ${attempt.attempt}): ${attempt.outcome}`,
              attempt.errorCode ? ` ${attempt.errorCode}` : "",
              attempt.statusCode ? ` HTTP ${attempt.statusCode}` : "",
              attempt.latencyMs !== undefined ? `, ${formatMs(attempt.latencyMs)}` : "",
              attempt.hedged ? " (hedged)" : "",
            ),
          ),
        )
      : muted("No backend calls."),
  );
  const fallbacks = summary.fallbacks ?? [];
  if (fallbacks.length) {
    details.append(h("h4", {}, "Fallbacks"));
    details.append(
      h(
        "ol",
        { class: "fallbacks" },
        fallbacks.map((/** @type {any} */ fallback) =>
          h("li", { class: "fallback" }, `${fallback.fromBackendId} / ${shortFlow(fallback.fromFlowId)} → ${fallback.toBackendId} / ${shortFlow(fallback.toFlowId)} because ${fallback.reason}`),
        ),
      ),
    );
  }
  details.append(h("h4", {}, "Trace events"));
  details.append(h("div", { class: "trace-events", "aria-busy": "true" }, muted("Loading trace events…")));
  return details;
}

/** @param {any} event */
function eventDetails(event) {
  /** @type {string[]} */
  const parts = [];
  for (const [key, value] of Object.entries(event)) {
    if (["type", "traceId", "requestId", "sessionId", "timestamp"].includes(key)) continue;
    if (key === "decision" && value && typeof value === "object") {
      const decision = /** @type {any} */ (value);
      parts.push(`intent=${decision.intent}`, `confidence=${formatPercent(decision.confidence)}`, `strategy=${decision.strategy}`, `candidates=${(decision.candidates ?? []).length}`);
      if (decision.chosen) parts.push(`chosen=${decision.chosen.flowId}`);
      if (decision.reason) parts.push(`reason=${decision.reason}`);
      continue;
    }
    parts.push(`${key}=${typeof value === "object" ? JSON.stringify(value) : String(value)}`);
  }
  return parts.join("  ");
}

/**
 * @param {HTMLElement} row
 * @param {string} traceId
 */
async function loadTraceEvents(row, traceId) {
  const container = row.querySelector(".trace-events");
  if (!(container instanceof HTMLElement)) return;
  try {
    const body = await api(`/queries/${encodeURIComponent(traceId)}/events`);
    if (!body.configured) return replaceContent(container, notConfigured());
    const events = body.events ?? [];
    if (!events.length) return replaceContent(container, muted("No trace events kept for this query."));
    const start = Date.parse(events[0].timestamp);
    const table = h(
      "table",
      { class: "data-table trace-table" },
      h("caption", { class: "visually-hidden" }, `Trace events of ${traceId}`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "+ms"), h("th", { scope: "col" }, "Event"), h("th", { scope: "col" }, "Details"))),
    );
    const tbody = h("tbody");
    for (const event of events) {
      tbody.append(
        h(
          "tr",
          { class: "trace-event", "data-event-type": event.type },
          h("td", { class: "num" }, String(Math.max(0, Date.parse(event.timestamp) - start))),
          h("td", {}, h("code", {}, event.type)),
          h("td", { class: "event-details" }, eventDetails(event)),
        ),
      );
    }
    table.append(tbody);
    replaceContent(container, h("div", { class: "table-scroll" }, table));
  } catch (error) {
    showLoadError(container, error);
  }
}

/** @param {any} summary */
function renderQueryRow(summary) {
  const startedAt = Date.parse(summary.startedAt);
  const row = h("li", {
    class: `feed-row row-${summary.outcome}${(summary.fallbacks ?? []).length ? " has-fallback" : ""}`,
    "data-trace-id": summary.traceId,
    "data-started": Number.isNaN(startedAt) ? 0 : startedAt,
  });
  const route = summary.answeredBy ?? summary.chosen;
  const fallbacks = (summary.fallbacks ?? []).length;
  const details = h("details", { class: "feed-item" });
  details.append(
    h(
      "summary",
      { class: "feed-summary" },
      h("time", { class: "feed-time", datetime: isoOf(summary.startedAt) }, formatTime(summary.startedAt)),
      h("span", { class: `feed-question${summary.questionRedacted ? " redacted" : ""}` }, questionText(summary)),
      h("span", { class: "feed-intent" }, summary.intent ? `${summary.intent} ${formatPercent(summary.confidence)}` : "intent —"),
      h("span", { class: "feed-route" }, route ? `${route.backendId} / ${shortFlow(route.flowId)}` : "—"),
      cacheBadge(summary.cache),
      fallbacks ? h("span", { class: "badge fallback-badge" }, `fallback ×${fallbacks}`) : null,
      h("span", { class: "feed-latency" }, formatMs(summary.durationMs)),
      outcomeBadge(summary),
    ),
  );
  details.append(renderQueryDetails(summary));
  details.addEventListener("toggle", () => {
    if (details.open && row.dataset.eventsLoaded !== "true") {
      row.dataset.eventsLoaded = "true";
      void loadTraceEvents(row, summary.traceId);
    }
  });
  row.append(details);
  return row;
}

/** @param {string} traceId */
function findRow(traceId) {
  for (const child of byId("feed-list").children) {
    if (child instanceof HTMLElement && child.dataset.traceId === traceId) return child;
  }
  return undefined;
}

/** @param {any} summary */
function upsertQuery(summary) {
  if (!summary || typeof summary.traceId !== "string") return;
  const list = byId("feed-list");
  const row = renderQueryRow(summary);
  const existing = findRow(summary.traceId);
  if (existing) {
    const wasOpen = existing.querySelector("details")?.open ?? false;
    const hadFocus = existing.contains(document.activeElement);
    existing.replaceWith(row);
    if (wasOpen) {
      const details = row.querySelector("details");
      if (details) details.open = true;
    }
    if (hadFocus) row.querySelector("summary")?.focus();
  } else {
    const startedAt = Number(row.dataset.started);
    let before = null;
    for (const child of list.children) {
      if (child instanceof HTMLElement && Number(child.dataset.started) < startedAt) {
        before = child;
        break;
      }
    }
    list.insertBefore(row, before);
    while (list.children.length > MAX_FEED_ROWS) list.lastElementChild?.remove();
  }
  byId("feed-empty").hidden = list.children.length > 0;
  const count = document.getElementById("kpi-feed-count");
  if (count) count.textContent = String(list.children.length);
}

async function loadQueries() {
  const list = byId("feed-list");
  const empty = byId("feed-empty");
  try {
    const body = await api("/queries", { params: { limit: 50 } });
    if (!body.configured) {
      empty.hidden = false;
      empty.textContent = "Recent queries are not configured on this gateway.";
      return;
    }
    empty.textContent = "No queries yet.";
    for (const summary of [...body.queries].reverse()) upsertQuery(summary);
    empty.hidden = list.children.length > 0;
  } catch (error) {
    empty.hidden = false;
    empty.textContent = `Could not load recent queries: ${error instanceof Error ? error.message : String(error)}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Cache

function updateFlowSelect() {
  const select = byId("clear-flow-select");
  if (!(select instanceof HTMLSelectElement)) return;
  const previous = select.value;
  const ids = new Map(state.flows.map((flow) => [flow.id, `${flow.name} (${flow.id})`]));
  for (const flowId of state.cacheFlows) if (!ids.has(flowId)) ids.set(flowId, flowId);
  select.replaceChildren(h("option", { value: "" }, "Choose a flow…"));
  for (const [id, label] of ids) select.append(h("option", { value: id }, label));
  if (ids.has(previous)) select.value = previous;
}

async function loadCache() {
  const container = byId("cache-body");
  try {
    const body = await api("/cache");
    if (!body.configured) {
      state.cacheFlows = [];
      updateFlowSelect();
      return replaceContent(container, notConfigured());
    }
    const cache = body.cache;
    const stats = cache.stats;
    const byFlow = cache.byFlow ?? [];
    state.cacheFlows = byFlow.map((/** @type {any} */ flow) => String(flow.flowId));
    updateFlowSelect();
    const parts = [];
    if (stats) {
      parts.push(
        h(
          "dl",
          { class: "figures" },
          h("div", {}, h("dt", {}, "Hit rate"), h("dd", { id: "cache-hit-rate" }, formatPercent(stats.hitRate))),
          h("div", {}, h("dt", {}, "Hits"), h("dd", {}, String(stats.hits))),
          h("div", {}, h("dt", {}, "Semantic hits"), h("dd", {}, String(stats.semanticHits))),
          h("div", {}, h("dt", {}, "Misses"), h("dd", {}, String(stats.misses))),
          h("div", {}, h("dt", {}, "Writes"), h("dd", {}, String(stats.writes))),
          h("div", {}, h("dt", {}, "Errors"), h("dd", {}, String(stats.errors))),
        ),
      );
    }
    parts.push(
      chartFigure(
        "Hit rate, last hour",
        sparkline((cache.hitRateSeries ?? []).map((/** @type {any} */ point) => point.hitRate), { label: "Cache hit rate", format: formatPercent, min: 0, max: 1, width: 360, height: 48 }),
      ),
    );
    if (byFlow.length) {
      const table = h(
        "table",
        { class: "data-table cache-flows" },
        h("caption", {}, "Entries by flow"),
        h("thead", {}, h("tr", {}, ["Flow", "Entries", "Hits", "Misses", "Writes"].map((label) => h("th", { scope: "col" }, label)))),
      );
      const tbody = h("tbody");
      for (const flow of byFlow) {
        /** @param {unknown} value */
        const count = (value) => (typeof value === "number" ? String(value) : "—");
        tbody.append(
          h(
            "tr",
            { "data-flow-id": flow.flowId },
            h("th", { scope: "row" }, flow.flowId),
            h("td", { class: "num cache-entries" }, count(flow.entries)),
            h("td", { class: "num" }, count(flow.hits)),
            h("td", { class: "num" }, count(flow.misses)),
            h("td", { class: "num" }, count(flow.writes)),
          ),
        );
      }
      table.append(tbody);
      parts.push(h("div", { class: "table-scroll" }, table));
    } else {
      parts.push(muted("No cached entries."));
    }
    replaceContent(container, parts);
  } catch (error) {
    showLoadError(container, error);
  }
}

/**
 * Opens the confirmation dialog; resolves true when the operator confirms.
 *
 * @param {string} message
 * @param {string} acceptLabel
 * @returns {Promise<boolean>}
 */
function confirmAction(message, acceptLabel) {
  const dialog = byId("confirm-dialog");
  const accept = byId("confirm-accept");
  const cancel = byId("confirm-cancel");
  if (!(dialog instanceof HTMLDialogElement)) return Promise.resolve(false);
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
  byId("confirm-message").textContent = message;
  accept.textContent = acceptLabel;
  return new Promise((resolve) => {
    /** @param {boolean} value */
    const finish = (value) => {
      accept.removeEventListener("click", onAccept);
      cancel.removeEventListener("click", onCancel);
      dialog.removeEventListener("cancel", onCancel);
      if (dialog.open) dialog.close();
      opener?.focus();
      resolve(value);
    };
    const onAccept = () => finish(true);
    const onCancel = (/** @type {Event} */ event) => {
      event.preventDefault();
      finish(false);
    };
    accept.addEventListener("click", onAccept);
    cancel.addEventListener("click", onCancel);
    dialog.addEventListener("cancel", onCancel);
    dialog.showModal();
    cancel.focus();
  });
}

/**
 * @param {{ flowId: string } | { sessionId: string } | { all: true }} selector
 * @param {string} what
 */
async function clearCache(selector, what) {
  const status = byId("cache-status");
  if (!(await confirmAction(`Clear the cached answers of ${what}? This cannot be undone.`, "Clear"))) {
    status.textContent = "Nothing cleared.";
    return;
  }
  status.textContent = `Clearing ${what}…`;
  try {
    const result = await api("/cache/clear", { method: "POST", body: selector });
    status.textContent = `Removed ${result.removed} cached ${result.removed === 1 ? "entry" : "entries"} (${what}).`;
    void loadCache();
    void loadOverview();
  } catch (error) {
    status.textContent = `Could not clear ${what}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Sessions

/**
 * @param {HTMLElement} container
 * @param {string} sessionId
 */
async function loadSessionTurns(container, sessionId) {
  try {
    const body = await api(`/sessions/${encodeURIComponent(sessionId)}`);
    if (!body.configured) return replaceContent(container, notConfigured());
    const turns = body.session.turnsList ?? [];
    if (!turns.length) return replaceContent(container, muted("No turns."));
    replaceContent(
      container,
      h(
        "ol",
        { class: "turns" },
        turns.map((/** @type {any} */ turn) =>
          h(
            "li",
            { class: "turn" },
            h("p", { class: "turn-question" }, h("span", { class: "turn-label" }, "Q: "), turn.question),
            h("p", { class: "turn-answer" }, h("span", { class: "turn-label" }, "A: "), turn.answer),
            h("p", { class: "muted small" }, [formatTime(turn.askedAt), turn.intent, turn.backendId && turn.flowId ? `${turn.backendId} / ${shortFlow(turn.flowId)}` : ""].filter(Boolean).join(" · ")),
          ),
        ),
      ),
    );
  } catch (error) {
    showLoadError(container, error);
  }
}

async function loadSessions() {
  const container = byId("sessions-body");
  try {
    const body = await api("/sessions", { params: { limit: 20 } });
    if (!body.configured) return replaceContent(container, notConfigured());
    if (!body.sessions.length) return replaceContent(container, muted("No sessions yet."));
    const openIds = new Set([...container.querySelectorAll("details[open]")].map((element) => (element instanceof HTMLElement ? element.dataset.sessionId : "")));
    const list = h("ul", { class: "sessions" });
    for (const session of body.sessions) {
      const turnsContainer = h("div", { class: "session-turns", "aria-busy": "true" }, muted("Loading turns…"));
      const details = h(
        "details",
        { class: "session", "data-session-id": session.sessionId },
        h("summary", {}, h("span", { class: "session-id" }, session.sessionId), ` · ${session.turns} ${session.turns === 1 ? "turn" : "turns"} · updated ${formatTime(session.updatedAt)}`),
        turnsContainer,
      );
      details.addEventListener("toggle", () => {
        if (details.open && details.dataset.loaded !== "true") {
          details.dataset.loaded = "true";
          void loadSessionTurns(turnsContainer, session.sessionId);
        }
      });
      if (openIds.has(session.sessionId)) details.open = true;
      list.append(h("li", {}, details));
    }
    replaceContent(container, list);
  } catch (error) {
    showLoadError(container, error);
  }
}

// ---------------------------------------------------------------------------------------------
// Tool zoo

async function loadToolServers() {
  const container = byId("tool-servers-body");
  try {
    const body = await api("/tools/servers");
    if (!body.configured) return replaceContent(container, notConfigured());
    if (!body.servers.length) return replaceContent(container, muted("No downstream servers configured."));
    const table = h(
      "table",
      { class: "data-table tool-servers" },
      h("caption", {}, "Downstream MCP servers"),
      h("thead", {}, h("tr", {}, ["Server", "Mode", "Connection", "Tools", "Last error"].map((label) => h("th", { scope: "col" }, label)))),
    );
    const tbody = h("tbody");
    for (const server of body.servers) {
      tbody.append(
        h(
          "tr",
          { "data-server": server.name },
          h("th", { scope: "row" }, server.name, server.transport ? h("span", { class: "muted small block" }, server.transport) : null),
          h("td", {}, h("span", { class: `badge mode-${server.mode}` }, server.mode)),
          h("td", {}, h("span", { class: `badge ${server.connected ? "connected" : "disconnected"}` }, server.connected ? "connected" : "not connected"), server.state ? h("span", { class: "muted small block" }, server.state) : null),
          h("td", { class: "num" }, String(server.toolCount)),
          h("td", { class: "muted" }, server.lastError ?? "—"),
        ),
      );
    }
    table.append(tbody);
    replaceContent(container, h("div", { class: "table-scroll" }, table));
  } catch (error) {
    showLoadError(container, error);
  }
}

/** @param {string} query */
async function searchTools(query) {
  const status = byId("tool-search-status");
  const results = byId("tool-search-results");
  status.textContent = "Searching…";
  try {
    const body = await api("/tools/search", { params: { q: query, limit: 10 } });
    if (!body.configured) {
      status.textContent = "Tool search is not configured on this gateway.";
      return replaceContent(results);
    }
    const search = body.search;
    const hits = search.results ?? [];
    const facts = [`${hits.length} ${hits.length === 1 ? "result" : "results"}`];
    if (typeof search.confidence === "number") facts.push(`confidence ${search.confidence.toFixed(2)}`);
    if (search.mode) facts.push(`mode ${search.mode}`);
    if (search.fallback) facts.push("low confidence: safe set returned");
    status.textContent = facts.join(", ");
    if (!hits.length) return replaceContent(results);
    const maxScore = Math.max(...hits.map((/** @type {any} */ hit) => Number(hit.score) || 0), 1e-9);
    const table = h(
      "table",
      { class: "data-table tool-results" },
      h("caption", { class: "visually-hidden" }, "Tool search results with scores"),
      h("thead", {}, h("tr", {}, ["#", "Tool", "Score", "Description"].map((label) => h("th", { scope: "col" }, label)))),
    );
    const tbody = h("tbody");
    hits.forEach((/** @type {any} */ hit, /** @type {number} */ index) => {
      const score = Number(hit.score) || 0;
      tbody.append(
        h(
          "tr",
          { class: "tool-hit", "data-tool-id": hit.id },
          h("td", { class: "num" }, String(index + 1)),
          h("th", { scope: "row" }, h("code", {}, hit.id)),
          h("td", { class: "num" }, h("span", { class: "score" }, score.toFixed(3)), " ", h("meter", { min: 0, max: maxScore, value: score, "aria-label": `Score of ${hit.id}` })),
          h("td", {}, hit.description ?? ""),
        ),
      );
    });
    table.append(tbody);
    replaceContent(results, h("div", { class: "table-scroll" }, table));
  } catch (error) {
    status.textContent = `Search failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Analytics (hidden unless the gateway serves analytics)

/** @param {number | undefined | null} value */
function formatSigned(value, digits = 4) {
  if (value === undefined || value === null || !Number.isFinite(value)) return "—";
  return `${value > 0 ? "+" : ""}${value.toFixed(digits)}`;
}

/** @param {number | undefined | null} value */
function formatNumber(value) {
  if (value === undefined || value === null || !Number.isFinite(value)) return "—";
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/**
 * @param {string} caption
 * @param {string[]} columns
 * @param {Array<{ attributes?: Record<string, string>, cells: Array<string | Node> }>} rows
 * @param {string} [className]
 */
function dataTable(caption, columns, rows, className = "") {
  return h(
    "div",
    { class: "table-scroll" },
    h(
      "table",
      { class: `data-table ${className}`.trim() },
      h("caption", { class: "visually-hidden" }, caption),
      h("thead", {}, h("tr", {}, columns.map((column) => h("th", { scope: "col" }, column)))),
      h(
        "tbody",
        {},
        rows.map((row) => h("tr", row.attributes ?? {}, row.cells.map((cell, index) => (index === 0 ? h("th", { scope: "row" }, cell) : h("td", {}, cell))))),
      ),
    ),
  );
}

function analyticsRange() {
  const select = byId("analytics-range");
  return select instanceof HTMLSelectElement ? select.value : "24h";
}

/** @param {boolean} shown */
function showAnalytics(shown) {
  byId("analytics").hidden = !shown;
  byId("nav-analytics").hidden = !shown;
}

/** @param {any} summary */
function renderAnalyticsSummary(summary) {
  const totals = summary.totals ?? {};
  /** @type {Array<[string, string, string]>} */
  const items = [
    ["Queries", String(totals.queries ?? 0), "queries"],
    ["Success rate", formatPercent(totals.successRate), "success"],
    ["Cache hit rate", formatPercent(totals.cacheHitRate), "cache-hit-rate"],
    ["Fallback rate", formatPercent(totals.fallbackRate), "fallback-rate"],
    ["Query latency p50 / p95", `${formatMs(summary.queryLatency?.p50Ms)} / ${formatMs(summary.queryLatency?.p95Ms)}`, "latency"],
  ];
  if (totals.feedback && totals.feedback.count > 0) items.push(["Feedback", `${formatSigned(totals.feedback.mean, 2)} (${totals.feedback.count})`, "feedback"]);
  replaceContent(
    byId("analytics-totals"),
    items.map(([term, value, key]) => h("div", { class: "kpi", "data-kpi": key }, h("dt", {}, term), h("dd", {}, value))),
  );
  if (summary.truncated) byId("analytics-status").textContent = "The range holds more events than one report reads: the newest are shown.";

  const flows = summary.topFlows ?? [];
  replaceContent(
    byId("analytics-flows"),
    flows.length === 0
      ? muted("No flow was used in this range.")
      : dataTable(
          "The most used flows in the range",
          ["Flow", "Queries", "Success", "p50", "p95", "Fallbacks from / to", "Cache hits", ""],
          flows.map((/** @type {any} */ flow) => ({
            attributes: { "data-flow-id": String(flow.flowId) },
            cells: [
              String(flow.flowId),
              String(flow.queries),
              formatPercent(flow.successRate),
              formatMs(flow.latency?.p50Ms),
              formatMs(flow.latency?.p95Ms),
              `${flow.fallbacksFrom} / ${flow.fallbacksTo}`,
              String(flow.cacheHits),
              h("button", { type: "button", class: "analyze-flow", "data-flow-id": String(flow.flowId), "aria-label": `Analyse ${flow.flowId}` }, "Analyse"),
            ],
          })),
          "analytics-flows-table",
        ),
  );

  const intents = summary.intents ?? [];
  replaceContent(
    byId("analytics-intents"),
    intents.length === 0
      ? muted("No classified queries in this range.")
      : dataTable(
          "Queries per intent",
          ["Intent", "Queries", "Share", "Success", "Fallback rate", "Mean confidence"],
          intents.map((/** @type {any} */ intent) => ({
            attributes: { "data-intent": String(intent.intent) },
            cells: [String(intent.intent), String(intent.queries), formatPercent(intent.share), formatPercent(intent.successRate), formatPercent(intent.fallbackRate), formatNumber(intent.meanConfidence)],
          })),
        ),
  );

  const experiments = summary.experiments ?? [];
  const arm = (/** @type {string} */ name, /** @type {any} */ stats) => [
    name,
    String(stats.queries),
    formatPercent(stats.successRate),
    formatMs(stats.latency?.p50Ms),
    formatMs(stats.latency?.p95Ms),
    formatPercent(stats.fallbackRate),
    stats.feedback && stats.feedback.count > 0 ? `${formatSigned(stats.feedback.mean, 2)} (${stats.feedback.count})` : "—",
  ];
  replaceContent(
    byId("analytics-experiments"),
    experiments.length === 0
      ? muted("No A/B experiment saw traffic in this range.")
      : experiments.map((/** @type {any} */ experiment) =>
          h(
            "div",
            { class: "experiment", "data-experiment-id": String(experiment.experimentId) },
            h("h4", {}, `${experiment.experimentId} · variant share ${formatPercent(experiment.variantShare)}`),
            dataTable(`A/B experiment ${experiment.experimentId}: control against variant`, ["Arm", "Queries", "Success", "p50", "p95", "Fallback rate", "Feedback"], [
              { attributes: { "data-arm": "control" }, cells: arm("control", experiment.control) },
              { attributes: { "data-arm": "variant" }, cells: arm("variant", experiment.variant) },
            ]),
            h(
              "p",
              { class: "muted small experiment-difference" },
              `Variant − control: success ${formatSigned(experiment.difference?.successRate, 3)}, p50 ${formatSigned(experiment.difference?.p50Ms, 0)} ms, p95 ${formatSigned(experiment.difference?.p95Ms, 0)} ms`,
            ),
          ),
        ),
  );
}

/** @param {string} flowId */
async function loadFlowAnalysis(flowId) {
  const container = byId("analytics-flow-detail");
  replaceContent(container, muted(`Analysing ${flowId}…`));
  try {
    const body = await api(`/analytics/flows/${encodeURIComponent(flowId)}`, { params: { range: analyticsRange() } });
    if (!body.configured) return replaceContent(container, notConfigured());
    const analysis = body.analysis;
    const recommendations = analysis.recommendations ?? [];
    replaceContent(
      container,
      h(
        "div",
        { class: "flow-analysis", "data-flow-id": String(analysis.flowId) },
        h("h4", {}, `Analysis of ${analysis.flowId}`),
        h(
          "p",
          { class: "figures" },
          `${analysis.usage?.queries ?? 0} queries · success ${formatPercent(analysis.usage?.successRate)} · p50 ${formatMs(analysis.usage?.latency?.p50Ms)} · p95 ${formatMs(analysis.usage?.latency?.p95Ms)} · ` +
            `fallback source ${formatPercent(analysis.fallback?.asSource?.share)} · target ${formatPercent(analysis.fallback?.asTarget?.share)}`,
        ),
        recommendations.length === 0
          ? muted("No recommendation.")
          : h(
              "ul",
              { class: "recommendations", "aria-label": `Recommendations for ${analysis.flowId}` },
              recommendations.map((/** @type {any} */ item) => h("li", { class: `recommendation severity-${String(item.severity).replace(/[^a-z]/g, "")}` }, h("span", { class: "badge" }, String(item.severity)), " ", String(item.message))),
            ),
      ),
    );
  } catch (error) {
    showLoadError(container, error);
  }
}

async function loadLearnedPrior() {
  const container = byId("analytics-learned");
  try {
    const body = await api("/analytics/learned");
    if (!body.configured) return replaceContent(container, muted("The learned routing prior is off on this gateway."));
    const adjustments = body.learned.adjustments ?? [];
    replaceContent(
      container,
      adjustments.length === 0
        ? muted("Nothing learned yet.")
        : [
            h("p", { class: "hint" }, `Added to the flow_match and performance components of a candidate's score; bounded by ±${body.learned.maxAdjustment}.`),
            dataTable(
              "Learned routing adjustments per intent and flow",
              ["Intent / flow", "flow_match", "performance", "Samples", "Success", "Reason"],
              adjustments.map((/** @type {any} */ entry) => ({
                attributes: { "data-intent": String(entry.intent), "data-flow-id": String(entry.flowId) },
                cells: [
                  `${entry.intent} → ${entry.flowId}`,
                  formatSigned(entry.flowMatch),
                  formatSigned(entry.performance),
                  formatNumber(entry.samples),
                  formatPercent(entry.successRate),
                  h("span", { class: "muted small" }, String(entry.reason)),
                ],
              })),
              "learned-table",
            ),
          ],
    );
  } catch (error) {
    showLoadError(container, error);
  }
}

async function loadPatterns() {
  const container = byId("analytics-patterns");
  const yamlBlock = byId("analytics-yaml-block");
  try {
    const body = await api("/analytics/patterns", { params: { range: analyticsRange() } });
    if (!body.configured) {
      yamlBlock.hidden = true;
      return replaceContent(container, muted("Pattern analysis is not available on this gateway (it needs an embedder)."));
    }
    const patterns = body.patterns;
    const proposals = patterns.proposals ?? [];
    const clusters = patterns.clusters ?? [];
    const fallbackIntents = patterns.fallbackIntents ?? [];
    const lowConfidence = patterns.lowConfidence ?? [];
    replaceContent(
      container,
      h("p", { class: "muted" }, `${patterns.questionsAnalysed} of ${patterns.queries} questions clustered; ${clusters.length} cluster${clusters.length === 1 ? "" : "s"}.`),
      proposals.length === 0
        ? muted("No proposal: no uncertain or troubled group of questions.")
        : h(
            "ul",
            { class: "proposals", "aria-label": "Proposals" },
            proposals.map((/** @type {any} */ proposal) =>
              h(
                "li",
                { class: "proposal", "data-kind": String(proposal.kind) },
                h("span", { class: "badge" }, proposal.kind === "intent-pattern" ? `pattern for ${proposal.intent}` : "new flow?"),
                " ",
                h("span", { class: "chips-inline" }, (proposal.keywords ?? []).map((/** @type {string} */ keyword) => h("code", { class: "keyword" }, String(keyword)))),
                h("span", { class: "muted small block" }, String(proposal.reason)),
                (proposal.examples ?? []).length > 0 ? h("span", { class: "muted small block proposal-example" }, `e.g. “${proposal.examples[0]}”`) : null,
              ),
            ),
          ),
      fallbackIntents.length === 0
        ? null
        : h(
            "p",
            { class: "fallback-intents" },
            "Fallback-prone intents: ",
            fallbackIntents.map((/** @type {any} */ item, /** @type {number} */ index) => `${index ? ", " : ""}${item.intent} (fallback ${formatPercent(item.fallbackRate)}, failure ${formatPercent(item.failureRate)})`),
          ),
      clusters.length === 0
        ? null
        : dataTable(
            "Clusters of similar questions",
            ["Representative question", "Size", "Intent", "Confidence", "Fallback rate", "Keywords"],
            clusters.map((/** @type {any} */ cluster) => ({
              attributes: { "data-cluster-id": String(cluster.id) },
              cells: [String(cluster.representative), String(cluster.size), String(cluster.dominantIntent ?? "—"), formatNumber(cluster.meanConfidence), formatPercent(cluster.fallbackRate), (cluster.keywords ?? []).join(", ")],
            })),
            "clusters-table",
          ),
      lowConfidence.length === 0
        ? null
        : h(
            "details",
            { class: "low-confidence" },
            h("summary", {}, `${lowConfidence.length} low-confidence question${lowConfidence.length === 1 ? "" : "s"}`),
            h(
              "ul",
              {},
              lowConfidence.map((/** @type {any} */ item) =>
                h("li", { "data-trace-id": String(item.traceId) }, h("span", { class: "low-confidence-question" }, item.question === null ? "(question not kept)" : String(item.question)), ` — ${item.intent ?? "no intent"} ${formatNumber(item.confidence)}`),
              ),
            ),
          ),
    );
    const yaml = typeof body.intentPatternsYaml === "string" ? body.intentPatternsYaml : "";
    byId("analytics-yaml").textContent = yaml;
    byId("analytics-copy-status").textContent = "";
    yamlBlock.hidden = yaml === "";
  } catch (error) {
    yamlBlock.hidden = true;
    showLoadError(container, error);
  }
}

/** @param {string | undefined} value */
function formatDateTime(value) {
  if (value === undefined) return "—";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? "—" : date.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}

async function loadAnalytics() {
  const panel = byId("analytics");
  const status = byId("analytics-status");
  const range = analyticsRange();
  try {
    const body = await api("/analytics/summary", { params: { range } });
    if (!body.configured) {
      showAnalytics(false);
      panel.dataset.state = "unavailable";
      return;
    }
    showAnalytics(true);
    status.textContent = `${formatDateTime(body.summary.range?.from)} – ${formatDateTime(body.summary.range?.to)}`;
    renderAnalyticsSummary(body.summary);
    const overview = await api("/overview").catch(() => undefined);
    byId("analytics-export-form").hidden = !overview?.sections?.metricsExport;
    await Promise.all([loadLearnedPrior(), loadPatterns()]);
    panel.dataset.range = range;
    panel.dataset.state = "loaded";
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return;
    showAnalytics(true);
    panel.dataset.state = "error";
    showLoadError(byId("analytics-flows"), error);
  }
}

async function copyYaml() {
  const pre = byId("analytics-yaml");
  const status = byId("analytics-copy-status");
  const text = pre.textContent ?? "";
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = "Copied.";
  } catch {
    // no clipboard access: select the text for a manual copy
    const selection = window.getSelection();
    const range = document.createRange();
    range.selectNodeContents(pre);
    selection?.removeAllRanges();
    selection?.addRange(range);
    status.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
  }
}

/** @param {"json" | "csv"} format */
async function downloadMetrics(format) {
  const status = byId("analytics-export-status");
  const select = byId("analytics-export-group");
  const groupBy = select instanceof HTMLSelectElement ? select.value : "flow";
  const range = analyticsRange();
  const query = new URLSearchParams({ range, format, groupBy });
  status.textContent = "Preparing the download…";
  try {
    const response = await fetch(`${apiPath}/analytics/export?${query}`, { headers: authHeaders({ Accept: format === "csv" ? "text/csv" : "application/json" }), cache: "no-store", credentials: "same-origin" });
    if (!response.ok) throw new ApiError(response.status, "HTTP_ERROR", `HTTP ${response.status}`);
    const blob = await response.blob();
    const url = URL.createObjectURL(blob);
    const link = h("a", { href: url, download: `afw-metrics-${groupBy}-${range}.${format}`, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
    status.textContent = `Downloaded metrics by ${groupBy} (${format.toUpperCase()}, ${blob.size} bytes).`;
  } catch (error) {
    status.textContent = `Could not export: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function wireAnalytics() {
  byId("analytics-range").addEventListener("change", () => {
    replaceContent(byId("analytics-flow-detail"));
    void loadAnalytics();
  });
  byId("analytics-range-form").addEventListener("submit", (event) => event.preventDefault());
  byId("analytics-flows").addEventListener("click", (event) => {
    const target = event.target;
    if (!(target instanceof HTMLButtonElement) || !target.classList.contains("analyze-flow")) return;
    const flowId = target.dataset.flowId;
    if (flowId) void loadFlowAnalysis(flowId);
  });
  byId("analytics-copy-yaml").addEventListener("click", () => void copyYaml());
  byId("analytics-export-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const submitter = /** @type {SubmitEvent} */ (event).submitter;
    void downloadMetrics(submitter instanceof HTMLButtonElement && submitter.value === "csv" ? "csv" : "json");
  });
}

// ---------------------------------------------------------------------------------------------
// Live feed over fetch streaming (server-sent events framing)

/** @param {string} section */
function scheduleRefresh(section) {
  if (state.refreshTimers.has(section)) return;
  const timer = window.setTimeout(() => {
    state.refreshTimers.delete(section);
    const loaders = /** @type {Record<string, () => Promise<void>>} */ ({ backends: loadBackends, cache: loadCache, sessions: loadSessions, toolServers: loadToolServers, overview: loadOverview });
    void loaders[section]?.();
  }, REFRESH_DEBOUNCE_MS);
  state.refreshTimers.set(section, timer);
}

/** @param {any} event */
function onTraceEvent(event) {
  const type = String(event?.type ?? "");
  if (type === "health-checked" || type.startsWith("circuit-") || type === "query-answered" || type === "query-failed") {
    scheduleRefresh("backends");
    scheduleRefresh("overview");
  }
  if (type.startsWith("cache-")) scheduleRefresh("cache");
  if (type === "session-appended") scheduleRefresh("sessions");
  if (type.startsWith("downstream-")) scheduleRefresh("toolServers");
  const row = typeof event?.traceId === "string" ? findRow(event.traceId) : undefined;
  if (row && row.querySelector("details")?.open) {
    const key = `events:${event.traceId}`;
    if (!state.refreshTimers.has(key)) {
      state.refreshTimers.set(
        key,
        window.setTimeout(() => {
          state.refreshTimers.delete(key);
          const current = findRow(event.traceId);
          if (current) void loadTraceEvents(current, event.traceId);
        }, 300),
      );
    }
  }
}

/**
 * @param {string} name
 * @param {string} data
 */
function onStreamFrame(name, data) {
  let payload;
  try {
    payload = JSON.parse(data);
  } catch {
    return;
  }
  if (name === "ready") setLiveStatus("live", payload?.redacted ? "Live (questions redacted)" : "Live");
  else if (name === "query") upsertQuery(payload);
  else if (name === "trace") onTraceEvent(payload);
  else if (name === "gap") void loadQueries();
}

/** @param {AbortSignal} signal */
async function streamOnce(signal) {
  const response = await fetch(`${apiPath}/events`, { headers: authHeaders({ Accept: "text/event-stream" }), cache: "no-store", signal });
  if (response.status === 401) {
    showAuthNotice(true);
    setLiveStatus("unauthorized", "Access token required");
    return "unauthorized";
  }
  if (response.status === 501) {
    setLiveStatus("unavailable", "Live feed not configured");
    return "unavailable";
  }
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  showAuthNotice(false);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return "closed";
    buffer += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message";
      /** @type {string[]} */
      const data = [];
      for (const line of frame.split("\n")) {
        if (line === "" || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon >= 0 ? line.slice(0, colon) : line;
        const fieldValue = colon >= 0 ? line.slice(colon + 1).replace(/^ /, "") : "";
        if (field === "event") name = fieldValue;
        else if (field === "data") data.push(fieldValue);
        else if (field === "retry" && /^\d+$/.test(fieldValue)) state.retryMs = Number(fieldValue);
      }
      if (data.length) onStreamFrame(name, data.join("\n"));
    }
  }
}

function waitForToken() {
  return new Promise((resolve) => state.authWaiters.push(() => resolve(undefined)));
}

/** @param {number} ms */
function delay(ms) {
  return new Promise((resolve) => window.setTimeout(resolve, ms));
}

async function runLiveFeed() {
  let failures = 0;
  for (;;) {
    const controller = new AbortController();
    state.stream = controller;
    setLiveStatus("connecting", failures ? "Reconnecting to the live feed…" : "Connecting to the live feed…");
    let outcome;
    try {
      outcome = await streamOnce(controller.signal);
    } catch {
      outcome = controller.signal.aborted ? "aborted" : "error";
    }
    if (outcome === "unavailable") return;
    if (outcome === "unauthorized") {
      await waitForToken();
      failures = 0;
      continue;
    }
    if (outcome === "aborted") {
      failures = 0;
      continue;
    }
    failures = outcome === "closed" ? 0 : failures + 1;
    setLiveStatus("offline", "Live feed disconnected; retrying");
    await delay(Math.min(30_000, state.retryMs * 2 ** Math.min(failures, 4)));
    void loadQueries();
  }
}

// ---------------------------------------------------------------------------------------------
// Wiring

function loadAll() {
  return Promise.all([loadOverview(), loadBackends(), loadFlows(), loadQueries(), loadCache(), loadSessions(), loadToolServers(), loadAnalytics()]);
}

/** @param {string} token */
function setToken(token) {
  state.token = token;
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage may be disabled; the token then lives for this page only
  }
  const waiters = state.authWaiters.splice(0);
  for (const wake of waiters) wake();
  state.stream?.abort();
  void loadAll();
}

function readInitialToken() {
  const match = /^#(?:.*&)?token=([^&]*)/.exec(location.hash);
  if (match) {
    history.replaceState(null, "", `${location.pathname}${location.search}`);
    try {
      return decodeURIComponent(match[1] ?? "");
    } catch {
      return "";
    }
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? "";
  } catch {
    return "";
  }
}

function wireForms() {
  const tokenForm = byId("token-form");
  const tokenInput = byId("token-input");
  if (tokenInput instanceof HTMLInputElement) tokenInput.value = state.token;
  tokenForm.addEventListener("submit", (event) => {
    event.preventDefault();
    if (tokenInput instanceof HTMLInputElement) setToken(tokenInput.value.trim());
  });

  byId("clear-flow-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const select = byId("clear-flow-select");
    if (!(select instanceof HTMLSelectElement) || !select.value) {
      byId("cache-status").textContent = "Choose a flow first.";
      return;
    }
    void clearCache({ flowId: select.value }, `flow ${select.value}`);
  });
  byId("clear-session-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = byId("clear-session-input");
    if (!(input instanceof HTMLInputElement) || !input.value.trim() || !input.checkValidity()) {
      byId("cache-status").textContent = "Enter a valid session id first.";
      return;
    }
    void clearCache({ sessionId: input.value.trim() }, `session ${input.value.trim()}`);
  });
  byId("clear-all-button").addEventListener("click", () => {
    void clearCache({ all: true }, "every flow and session");
  });
  byId("tool-search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = byId("tool-search-input");
    if (input instanceof HTMLInputElement && input.value.trim()) void searchTools(input.value.trim());
  });
}

function start() {
  state.token = readInitialToken();
  wireForms();
  wireAnalytics();
  if (redacted) document.documentElement.dataset.redacted = "true";
  void runLiveFeed();
  void loadAll();
  window.setInterval(() => {
    if (document.visibilityState !== "visible") return;
    void loadBackends();
    void loadCache();
    void loadSessions();
    void loadToolServers();
    void loadOverview();
  }, PERIODIC_REFRESH_MS);
}

start();
