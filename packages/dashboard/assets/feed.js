/** The live routing feed: one row per query, expandable into candidates, attempts, fallbacks and trace events. */
import { useState } from "preact/hooks";
import { api, redacted } from "./api.js";
import { CACHE_LABELS, answeredOf, attemptText, chosenOf, eventDetails, formatMs, formatPercent, formatTime, hedgeBadge, isoOf, queryFacts, questionText, routeOf, shortFlow } from "./format.js";
import { DataTable, Loaded, Muted, Panel, html, useLoad } from "./ui.js";

const BREAKDOWN = ["flow_match", "health", "performance", "capability"];

function OutcomeBadge({ summary }) {
  if (summary.outcome === "failed") return html`<span class="badge outcome-failed">failed: ${summary.errorCode ?? "error"}</span>`;
  if (summary.outcome === "pending") return html`<span class="badge outcome-pending">in progress</span>`;
  return html`<span class="badge outcome-answered">answered</span>`;
}

function TraceEvents({ summary }) {
  const { traceId } = summary;
  const state = useLoad(() => api(`/queries/${encodeURIComponent(traceId)}/events`), [traceId, summary.outcome, (summary.attempts ?? []).length]);
  return html`<${Loaded} state=${state} className="trace-events" render=${({ events }) => {
    const start = Date.parse(events?.[0]?.timestamp);
    return html`<${DataTable}
      caption=${`Trace events of ${traceId}`}
      empty="No trace events kept for this query."
      className="trace-table"
      columns=${["+ms", "Event", "Details"]}
      rows=${(events ?? []).map((event, index) => ({
        key: index,
        attributes: { class: "trace-event", "data-event-type": event.type },
        cells: [String(Math.max(0, Date.parse(event.timestamp) - start)), html`<code>${event.type}</code>`, html`<span class="event-details">${eventDetails(event)}</span>`],
      }))}
    />`;
  }} />`;
}

function QueryDetails({ summary }) {
  const candidates = summary.candidates ?? [];
  const attempts = summary.attempts ?? [];
  const fallbacks = summary.fallbacks ?? [];
  const isChosen = (candidate) => summary.chosenFlowId === candidate.flowId && summary.chosenBackendId === candidate.backendId;
  return html`<div class="feed-details">
    <dl class="facts">${queryFacts(summary).map(([term, value]) => html`<div><dt>${term}</dt><dd>${value}</dd></div>`)}</dl>
    <h4>Candidates</h4>
    ${candidates.length
      ? html`<div class="table-scroll"><table class="data-table candidates">
          <caption class="visually-hidden">Routing candidates with score breakdown</caption>
          <thead><tr>${["#", "Backend", "Flow", "Score", "Flow match", "Health", "Performance", "Capability", "Note"].map((label) => html`<th scope="col">${label}</th>`)}</tr></thead>
          <tbody>
            ${candidates.map(
              (candidate) => html`<tr class=${isChosen(candidate) ? "chosen" : undefined}>
                <td class="num">${String(candidate.rank ?? "")}</td><td>${candidate.backendId}</td><td>${candidate.flowName ?? shortFlow(candidate.flowId)}</td>
                <td class="num">${Number(candidate.score).toFixed(3)}</td>
                ${BREAKDOWN.map((key) => html`<td class="num">${typeof candidate.breakdown?.[key] === "number" ? candidate.breakdown[key].toFixed(2) : "—"}</td>`)}
                <td>${candidate.excluded ? `excluded: ${candidate.excluded}` : isChosen(candidate) ? "first choice" : ""}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
      : html`<${Muted}>${summary.cacheHit ? "Served from the cache; no routing needed." : "No routing decision recorded."}<//>`}
    <h4>Attempts</h4>
    ${attempts.length ? html`<ol class="attempts">${attempts.map((attempt) => html`<li class=${`attempt attempt-${attempt.outcome}`}>${attemptText(attempt)}</li>`)}</ol>` : html`<${Muted}>No backend calls.<//>`}
    ${fallbacks.length > 0 &&
    html`<h4>Fallbacks</h4>
      <ol class="fallbacks">${fallbacks.map((fallback) => html`<li class="fallback">${routeOf({ backendId: fallback.fromBackendId, flowId: fallback.fromFlowId })} → ${routeOf({ backendId: fallback.toBackendId, flowId: fallback.toFlowId })} because ${fallback.reason}</li>`)}</ol>`}
    <h4>Trace events</h4>
    <${TraceEvents} summary=${summary} />
  </div>`;
}

function QueryRow({ summary }) {
  const [open, setOpen] = useState(false);
  const fallbacks = (summary.fallbacks ?? []).length;
  const hedge = hedgeBadge(summary);
  return html`<li class=${`feed-row row-${summary.outcome}${fallbacks ? " has-fallback" : ""}`} data-trace-id=${summary.traceId}>
    <details class="feed-item" onToggle=${(event) => setOpen(event.currentTarget.open)}>
      <summary class="feed-summary">
        <time class="feed-time" datetime=${isoOf(summary.startedAt)}>${formatTime(summary.startedAt)}</time>
        <span class=${`feed-question${summary.questionRedacted ? " redacted" : ""}`}>${questionText(summary)}</span>
        <span class="feed-intent">${summary.intent ? `${summary.intent} ${formatPercent(summary.confidence)}` : "intent —"}</span>
        <span class="feed-route">${routeOf(answeredOf(summary) ?? chosenOf(summary))}</span>
        <span class=${`badge cache-${summary.cache ?? "unknown"}`}>${CACHE_LABELS[summary.cache ?? "unknown"] ?? summary.cache}</span>
        ${fallbacks > 0 && html`<span class="badge fallback-badge">fallback ×${fallbacks}</span>`}
        ${hedge && html`<span class="badge hedge-badge" title="two candidates ran in parallel for an uncertain question">${hedge}</span>`}
        <span class="feed-latency">${formatMs(summary.durationMs)}</span>
        <${OutcomeBadge} summary=${summary} />
      </summary>
      ${open && html`<${QueryDetails} summary=${summary} />`}
    </details>
  </li>`;
}

/** The feed panel: `feed` is `{ rows, configured?, error? }` kept by the app. */
export function FeedPanel({ feed }) {
  const empty = feed.error ? `Could not load recent queries: ${feed.error}` : feed.configured === false ? "Recent queries are not configured on this gateway." : "No queries yet.";
  return html`<${Panel} id="feed" title="Live routing" hint=${`Recent queries, newest first. Expand a row for its candidates, attempts and trace events.${redacted ? " Questions are redacted." : ""}`}>
    <p class="muted" id="feed-empty" hidden=${feed.rows.length > 0}>${empty}</p>
    <ol id="feed-list" class="feed" aria-live="polite" aria-relevant="additions" aria-label="Recent queries">
      ${feed.rows.map((summary) => html`<${QueryRow} key=${summary.traceId} summary=${summary} />`)}
    </ol>
  <//>`;
}
