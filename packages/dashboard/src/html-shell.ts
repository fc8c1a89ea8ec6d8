/** What the page shell needs to know. */
export interface HtmlShellOptions {
  /** Page title. */
  title: string;
  /** Where the page and its assets are served, e.g. `/dashboard`. */
  basePath: string;
  /** Where the JSON endpoints are served, e.g. `/api`. */
  apiPath: string;
  /** Whether user text is hidden. */
  redacted: boolean;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Escapes `&`, `<`, `>`, `"` and `'` so `text` is safe in HTML text and quoted attributes.
 *
 * @example
 * ```ts
 * escapeHtml('<img src=x onerror=alert(1)>'); // "&lt;img src=x onerror=alert(1)&gt;"
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/**
 * Renders the page shell: landmarks, headings and empty regions that `dashboard.js` fills with
 * data through the JSON endpoints. No data and no inline script or style are in the shell.
 */
export function renderHtmlShell(options: HtmlShellOptions): string {
  const title = escapeHtml(options.title);
  const base = escapeHtml(options.basePath);
  const api = escapeHtml(options.apiPath);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="referrer" content="no-referrer">
<meta name="afw-api-path" content="${api}">
<meta name="afw-redacted" content="${options.redacted ? "true" : "false"}">
<title>${title} — dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${base}/assets/dashboard.css">
<script type="module" src="${base}/assets/dashboard.js"></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="page-header">
  <div class="brand">
    <h1 id="page-title">${title}</h1>
    <p class="subtitle" id="gateway-info">Operator dashboard</p>
  </div>
  <p class="live-status" id="live-status" role="status" data-state="connecting">Connecting to the live feed…</p>
  <form class="token-form" id="token-form" autocomplete="off">
    <label for="token-input">Access token</label>
    <input id="token-input" name="token" type="password" autocomplete="off" spellcheck="false" aria-describedby="token-help">
    <button type="submit">Use token</button>
    <span class="visually-hidden" id="token-help">Kept in this browser tab only; sent as an Authorization bearer header.</span>
  </form>
  <nav class="section-nav" aria-label="Sections">
    <ul>
      <li><a href="#backends">Backends</a></li>
      <li><a href="#flows">Flows</a></li>
      <li id="nav-analytics" hidden><a href="#analytics">Analytics</a></li>
      <li><a href="#sessions">Sessions</a></li>
      <li><a href="#feed">Live routing</a></li>
      <li><a href="#cache">Cache</a></li>
      <li><a href="#tools">Tool zoo</a></li>
    </ul>
  </nav>
</header>
<main id="main" tabindex="-1">
  <p class="notice" id="auth-notice" role="alert" hidden></p>
  <dl class="kpis" id="overview" aria-label="Overview"></dl>
  <section id="backends" class="panel" aria-labelledby="backends-heading">
    <h2 id="backends-heading">Backends</h2>
    <p class="hint">Health, circuit state, latency and success rate per backend and flow; charts cover the last hour.</p>
    <div id="backends-body" class="panel-body" aria-busy="true"><p class="muted">Loading…</p></div>
  </section>
  <section id="flows" class="panel" aria-labelledby="flows-heading">
    <h2 id="flows-heading">Flows and intents</h2>
    <div id="flows-body" class="panel-body" aria-busy="true"><p class="muted">Loading…</p></div>
  </section>
  <section id="analytics" class="panel" aria-labelledby="analytics-heading" hidden>
    <h2 id="analytics-heading">Analytics</h2>
    <p class="hint">What the gateway recorded over a time range: usage, success, latency, the A/B experiments, what routing learned and the intent patterns proposed from the questions.</p>
    <form id="analytics-range-form" class="inline-form">
      <label for="analytics-range">Range</label>
      <select id="analytics-range" name="range">
        <option value="1h">Last hour</option>
        <option value="24h" selected>Last 24 hours</option>
        <option value="7d">Last 7 days</option>
      </select>
      <span class="status-line" id="analytics-status" role="status"></span>
    </form>
    <dl class="kpis" id="analytics-totals" aria-label="Analytics totals"></dl>
    <h3 id="analytics-flows-heading">Top flows</h3>
    <div id="analytics-flows" class="panel-body" aria-busy="true"><p class="muted">Loading…</p></div>
    <div id="analytics-flow-detail" class="flow-detail" aria-live="polite"></div>
    <h3 id="analytics-intents-heading">Intents</h3>
    <div id="analytics-intents" class="panel-body"></div>
    <h3 id="analytics-experiments-heading">A/B experiments</h3>
    <div id="analytics-experiments" class="panel-body"></div>
    <h3 id="analytics-learned-heading">Learned routing adjustments</h3>
    <div id="analytics-learned" class="panel-body"></div>
    <h3 id="analytics-patterns-heading">Question patterns and proposals</h3>
    <div id="analytics-patterns" class="panel-body"></div>
    <div id="analytics-yaml-block" class="yaml-block" hidden>
      <p class="hint" id="analytics-yaml-help">The proposals as <code>routing.intentPatterns</code>: merge them into the gateway configuration, then reload it with <code>SIGHUP</code>.</p>
      <pre id="analytics-yaml" class="yaml" tabindex="0" aria-describedby="analytics-yaml-help"></pre>
      <button type="button" id="analytics-copy-yaml">Copy YAML</button>
      <span class="status-line" id="analytics-copy-status" role="status"></span>
    </div>
    <form id="analytics-export-form" class="inline-form" hidden>
      <label for="analytics-export-group">Export metrics by</label>
      <select id="analytics-export-group" name="groupBy">
        <option value="flow" selected>flow</option>
        <option value="backend">backend</option>
        <option value="intent">intent</option>
      </select>
      <button type="submit" id="analytics-export-json" value="json">Download JSON</button>
      <button type="submit" id="analytics-export-csv" value="csv">Download CSV</button>
      <span class="status-line" id="analytics-export-status" role="status"></span>
    </form>
  </section>
  <section id="sessions" class="panel" aria-labelledby="sessions-heading">
    <h2 id="sessions-heading">Sessions</h2>
    <div id="sessions-body" class="panel-body" aria-busy="true"><p class="muted">Loading…</p></div>
  </section>
  <section id="feed" class="panel" aria-labelledby="feed-heading">
    <h2 id="feed-heading">Live routing</h2>
    <p class="hint">Recent queries, newest first. Expand a row for its candidates, attempts and trace events.${options.redacted ? " Questions are redacted." : ""}</p>
    <p class="muted" id="feed-empty">No queries yet.</p>
    <ol id="feed-list" class="feed" aria-live="polite" aria-relevant="additions" aria-label="Recent queries"></ol>
  </section>
  <section id="cache" class="panel" aria-labelledby="cache-heading">
    <h2 id="cache-heading">Cache</h2>
    <div id="cache-body" class="panel-body" aria-busy="true"><p class="muted">Loading…</p></div>
    <div class="cache-actions" id="cache-actions">
      <h3>Clear cached answers</h3>
      <form id="clear-flow-form" class="inline-form">
        <label for="clear-flow-select">Flow</label>
        <select id="clear-flow-select" name="flowId" required></select>
        <button type="submit" id="clear-flow-button">Clear flow</button>
      </form>
      <form id="clear-session-form" class="inline-form">
        <label for="clear-session-input">Session id</label>
        <input id="clear-session-input" name="sessionId" type="text" required maxlength="128" pattern="[A-Za-z0-9._:@\\-]+" spellcheck="false">
        <button type="submit" id="clear-session-button">Clear session</button>
      </form>
      <button type="button" class="danger" id="clear-all-button">Clear all</button>
      <p id="cache-status" class="status-line" role="status"></p>
    </div>
  </section>
  <section id="tools" class="panel" aria-labelledby="tools-heading">
    <h2 id="tools-heading">Tool zoo</h2>
    <div id="tool-servers-body" class="panel-body" aria-busy="true"><p class="muted">Loading…</p></div>
    <form id="tool-search-form" class="inline-form" role="search">
      <label for="tool-search-input">Search tools</label>
      <input id="tool-search-input" name="q" type="search" required maxlength="500" aria-describedby="tool-search-help">
      <button type="submit">Search</button>
      <span class="hint" id="tool-search-help">Shows what <code>search_tools</code> returns, with scores.</span>
    </form>
    <p id="tool-search-status" class="status-line" role="status"></p>
    <div id="tool-search-results"></div>
  </section>
</main>
<dialog id="confirm-dialog" aria-labelledby="confirm-title" aria-describedby="confirm-message">
  <h2 id="confirm-title">Please confirm</h2>
  <p id="confirm-message"></p>
  <div class="dialog-actions">
    <button type="button" id="confirm-cancel" value="cancel">Cancel</button>
    <button type="button" id="confirm-accept" class="danger" value="confirm">Clear</button>
  </div>
</dialog>
<footer class="page-footer"><p>Agentic Flywheel operator dashboard · data from <code>${api}</code></p></footer>
</body>
</html>
`;
}
