/**
 * Agentic Flywheel operator dashboard: the page's entry module (preact + htm, served as ES
 * modules; no build step). The app holds the token, the live feed and when each panel reloads;
 * the panels live in their own modules.
 */
import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { AnalyticsPanel } from "./analytics.js";
import { api, apiPath, initialToken, redacted, session, storeToken, streamEvents } from "./api.js";
import { CachePanel, SemanticCachePanel } from "./cache-panel.js";
import { FeedPanel } from "./feed.js";
import { overviewItems, upsertRow } from "./format.js";
import { HistoryPanel } from "./history.js";
import { BackendsPanel, FlowsPanel, SessionsPanel, ToolsPanel } from "./panels.js";
import { Figures, errorText, html, useLoad } from "./ui.js";

const REFRESH_DEBOUNCE_MS = 2000;
const PERIODIC_REFRESH_MS = 30_000;
const PERIODIC = ["backends", "cache", "sessions", "toolServers", "overview"];
const NAV = [
  ["backends", "Backends"],
  ["flows", "Flows"],
  ["analytics", "Analytics"],
  ["sessions", "Sessions"],
  ["feed", "Live routing"],
  ["cache", "Cache"],
  ["tools", "Tool zoo"],
  ["history", "History"],
];

/** Which panels a trace event makes stale. */
function staleSections(type) {
  const sections = [];
  if (type === "health-checked" || type.startsWith("circuit-") || type === "query-answered" || type === "query-failed") sections.push("backends", "overview");
  if (type.startsWith("cache-")) sections.push("cache");
  if (type === "session-appended") sections.push("sessions");
  if (type.startsWith("downstream-")) sections.push("toolServers");
  return sections;
}

function App() {
  const [token, setToken] = useState(initialToken);
  const [authNeeded, setAuthNeeded] = useState(false);
  const [live, setLive] = useState({ state: "connecting", text: "Connecting to the live feed…" });
  const [versions, setVersions] = useState(/** @type {Record<string, number>} */ ({}));
  const [feed, setFeed] = useState(/** @type {{ rows: any[], configured?: boolean, error?: string }} */ ({ rows: [] }));
  const timers = useRef(new Map());
  session.token = token;
  session.onUnauthorized = () => {
    setAuthNeeded(true);
    setLive({ state: "unauthorized", text: "Access token required" });
  };
  session.onAuthorized = () => setAuthNeeded(false);
  const bump = (...sections) => setVersions((current) => Object.fromEntries([...Object.entries(current), ...sections.map((section) => [section, (current[section] ?? 0) + 1])]));
  const version = (section) => `${token}:${versions[section] ?? 0}`;
  const overview = useLoad(() => api("/overview"), [version("overview")]);

  const loadQueries = () =>
    api("/queries", { params: { limit: 50 } }).then(
      (body) => setFeed((current) => (body.configured ? { rows: [...body.queries].reverse().reduce((rows, summary) => upsertRow(rows, summary), current.rows), configured: true } : { rows: [], configured: false })),
      (error) => setFeed((current) => ({ ...current, error: errorText(error) })),
    );
  const later = (key, run, ms = REFRESH_DEBOUNCE_MS) => {
    if (timers.current.has(key)) return;
    timers.current.set(key, setTimeout(() => (timers.current.delete(key), run()), ms));
  };
  const onFrame = (name, payload) => {
    if (name === "ready") setLive({ state: "live", text: payload?.redacted ? "Live (questions redacted)" : "Live" });
    else if (name === "query") setFeed((current) => ({ ...current, rows: upsertRow(current.rows, payload) }));
    else if (name === "trace") for (const section of staleSections(String(payload?.type ?? ""))) later(section, () => bump(section));
    else if (name === "gap") void loadQueries();
  };

  useEffect(() => {
    const controller = new AbortController();
    let retryMs = 3000;
    void loadQueries();
    void (async () => {
      for (let failures = 0; !controller.signal.aborted; ) {
        setLive({ state: "connecting", text: failures ? "Reconnecting to the live feed…" : "Connecting to the live feed…" });
        const outcome = await streamEvents(controller.signal, onFrame, (ms) => (retryMs = ms)).catch(() => "error");
        if (controller.signal.aborted || outcome === "unauthorized") return;
        if (outcome === "unavailable") return setLive({ state: "unavailable", text: "Live feed not configured" });
        failures = outcome === "closed" ? 0 : failures + 1;
        setLive({ state: "offline", text: "Live feed disconnected; retrying" });
        await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, retryMs * 2 ** Math.min(failures, 4))));
        void loadQueries();
      }
    })();
    const periodic = setInterval(() => document.visibilityState === "visible" && bump(...PERIODIC), PERIODIC_REFRESH_MS);
    return () => {
      controller.abort();
      clearInterval(periodic);
    };
  }, [token]);

  const useToken = (event) => {
    event.preventDefault();
    const next = String(new FormData(event.currentTarget).get("token") ?? "").trim();
    storeToken(next);
    setToken(next);
  };
  const info = overview.data?.info ?? {};
  const sections = overview.data?.sections ?? {};
  const subtitle = [info.name ?? "Operator dashboard", info.version ? `v${info.version}` : "", overview.data?.redacted ? "questions redacted" : ""].filter(Boolean).join(" · ");
  return html`<a class="skip-link" href="#main">Skip to content</a>
    <header class="page-header">
      <div class="brand"><h1 id="page-title">${document.title.replace(/ — dashboard$/, "")}</h1><p class="subtitle" id="gateway-info">${subtitle}</p></div>
      <p class="live-status" id="live-status" role="status" data-state=${live.state}>${live.text}</p>
      <form class="token-form" id="token-form" autocomplete="off" onSubmit=${useToken}>
        <label for="token-input">Access token</label>
        <input id="token-input" name="token" type="password" autocomplete="off" spellcheck="false" aria-describedby="token-help" defaultValue=${token} />
        <button type="submit">Use token</button>
        <span class="visually-hidden" id="token-help">Kept in this browser tab only; sent as an Authorization bearer header.</span>
      </form>
      <nav class="section-nav" aria-label="Sections">
        <ul>${NAV.map(([id, label]) => html`<li id=${`nav-${id}`} hidden=${id === "analytics" && !sections.analytics}><a href=${`#${id}`}>${label}</a></li>`)}</ul>
      </nav>
    </header>
    <main id="main" tabindex="-1">
      <p class="notice" id="auth-notice" role="alert" hidden=${!authNeeded}>${authNeeded ? "The gateway requires an access token (HTTP 401). Enter it in the Access token field above." : ""}</p>
      ${overview.data && html`<${Figures} items=${overviewItems(overview.data, feed.rows.length).map(([term, value]) => [term, value, undefined, term === "Queries in feed" ? "kpi-feed-count" : undefined])} className="kpis" label="Overview" />`}
      <${BackendsPanel} version=${version("backends")} />
      <${FlowsPanel} version=${version("flows")} />
      <${AnalyticsPanel} version=${version("analytics")} metricsExport=${!!sections.metricsExport} />
      <${SessionsPanel} version=${version("sessions")} />
      <${FeedPanel} feed=${feed} />
      <${CachePanel} version=${version("cache")} onCleared=${() => bump("cache", "overview")} />
      <${SemanticCachePanel} version=${version("cache")} />
      <${ToolsPanel} version=${version("toolServers")} />
      <${HistoryPanel} />
    </main>
    <footer class="page-footer"><p>Agentic Flywheel operator dashboard · data from <code>${apiPath}</code></p></footer>`;
}

if (redacted) document.documentElement.dataset.redacted = "true";
render(html`<${App} />`, document.body);
