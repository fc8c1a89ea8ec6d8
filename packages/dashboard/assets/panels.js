/** The Backends, Flows, Sessions and Tool zoo panels. */
import { useState } from "preact/hooks";
import { api } from "./api.js";
import { formatMs, formatPercent, formatTime, shortFlow, toolSearchStatus } from "./format.js";
import { Chart, DataTable, Figures, Loaded, LoadedPanel, Muted, Sparkline, errorText, html, useLoad } from "./ui.js";

const successValues = (figures) => (figures.series ?? []).map((point) => point.successRate);

function BackendCard({ backend }) {
  const headingId = `backend-${String(backend.id).replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const flows = backend.flows ?? [];
  return html`<article class="card backend-card" data-backend-id=${backend.id} aria-labelledby=${headingId}>
    <header class="card-header"><h3 id=${headingId}>${backend.id}</h3><span class="kind">${backend.kind}</span></header>
    <p class="badges">
      <span class=${`badge health-${backend.health}`}>Health: ${backend.health}</span>${" "}
      <span class=${`badge circuit-${backend.circuit}`}>Circuit: ${backend.circuit}</span>
      ${backend.circuitFailures ? html`<span class="muted small"> ${backend.circuitFailures} consecutive failures</span>` : null}
    </p>
    ${backend.healthMessage && html`<p class="muted small">${backend.healthMessage}</p>`}
    <${Figures} items=${[["p50", formatMs(backend.latencyP50Ms)], ["p95", formatMs(backend.latencyP95Ms)], ["Success", formatPercent(backend.successRate)], ["Requests", String(backend.requestCount ?? 0)]]} />
    <div class="charts">
      <${Chart} caption="Success rate, last hour"><${Sparkline} values=${successValues(backend)} label=${`${backend.id} success rate`} format=${formatPercent} min=${0} max=${1} /><//>
      <${Chart} caption="p95 latency, last hour"><${Sparkline} values=${(backend.series ?? []).map((point) => point.p95Ms)} label=${`${backend.id} p95 latency`} format=${formatMs} min=${0} /><//>
    </div>
    ${flows.length > 0 &&
    html`<${DataTable}
      caption=${`Flows of ${backend.id}`}
      captionHidden=${false}
      className="flow-performance"
      columns=${["Flow", "Requests", "Success", "p50", "p95", "Success, last hour"]}
      rows=${flows.map((flow) => ({
        key: flow.flowId,
        numeric: [1, 2, 3, 4],
        cells: [
          shortFlow(flow.flowId),
          String(flow.requestCount ?? 0),
          formatPercent(flow.successRate),
          formatMs(flow.latencyP50Ms),
          formatMs(flow.latencyP95Ms),
          html`<${Sparkline} values=${successValues(flow)} label=${`${flow.flowId} success rate`} format=${formatPercent} min=${0} max=${1} width=${90} height=${22} />`,
        ],
      }))}
    />`}
  </article>`;
}

export function BackendsPanel({ version }) {
  return html`<${LoadedPanel} id="backends" title="Backends" hint="Health, circuit state, latency and success rate per backend and flow; charts cover the last hour."
    bodyId="backends-body" path="/backends" version=${version} render=${({ backends }) =>
      backends.length ? html`<div class="cards">${backends.map((backend) => html`<${BackendCard} key=${backend.id} backend=${backend} />`)}</div>` : html`<${Muted}>No backends configured.<//>`} />`;
}

function flowNotes(flow) {
  const notes = [flow.generalPurpose && "general purpose", flow.cacheable === false && "not cached", flow.cacheClass && `cache class: ${flow.cacheClass}`].filter(Boolean);
  return notes.join(" · ") || "—";
}

export function FlowsPanel({ version }) {
  return html`<${LoadedPanel} id="flows" title="Flows and intents" bodyId="flows-body" path="/flows" version=${version} render=${({ flows }) =>
      html`<${DataTable}
        caption="Flows and the intents they serve"
        empty="No flows discovered."
        className="flows-table"
        columns=${["Flow", "Backend", "Intents", "Notes"]}
        rows=${flows.map((flow) => ({
          key: flow.id,
          attributes: { "data-flow-id": flow.id },
          cells: [
            html`${flow.name}<span class="muted small block">${flow.id}</span>`,
            flow.backendId,
            html`<ul class="chips" aria-label=${`Intents of ${flow.name}`}>${(flow.intents ?? []).map((intent) => html`<li class="chip">${intent}</li>`)}</ul>`,
            html`<span class="muted">${flowNotes(flow)}</span>`,
          ],
        }))}
      />`} />`;
}

function SessionTurns({ sessionId }) {
  const state = useLoad(() => api(`/sessions/${encodeURIComponent(sessionId)}`), [sessionId]);
  return html`<${Loaded} state=${state} className="session-turns" render=${({ session }) =>
    session.turnsList?.length
      ? html`<ol class="turns">
          ${session.turnsList.map(
            (turn) => html`<li class="turn">
              <p class="turn-question"><span class="turn-label">Q: </span>${turn.question}</p>
              <p class="turn-answer"><span class="turn-label">A: </span>${turn.answer}</p>
              <p class="muted small">${[formatTime(turn.askedAt), turn.intent, turn.backendId && turn.flowId ? `${turn.backendId} / ${shortFlow(turn.flowId)}` : "", ...(turn.tags ?? [])].filter(Boolean).join(" · ")}</p>
            </li>`,
          )}
        </ol>`
      : html`<${Muted}>No turns.<//>`} />`;
}

function SessionItem({ session }) {
  const [open, setOpen] = useState(false);
  return html`<li>
    <details class="session" data-session-id=${session.sessionId} onToggle=${(event) => setOpen(event.currentTarget.open)}>
      <summary><span class="session-id">${session.sessionId}</span> · ${session.turns} ${session.turns === 1 ? "turn" : "turns"} · updated ${formatTime(session.updatedAt)}${session.tags?.length ? ` · ${session.tags.join(", ")}` : ""}</summary>
      ${open && html`<${SessionTurns} sessionId=${session.sessionId} />`}
    </details>
  </li>`;
}

export function SessionsPanel({ version }) {
  return html`<${LoadedPanel} id="sessions" title="Sessions" bodyId="sessions-body" path="/sessions" params=${{ limit: 20 }} version=${version} render=${({ sessions }) =>
      sessions.length ? html`<ul class="sessions">${sessions.map((session) => html`<${SessionItem} key=${session.sessionId} session=${session} />`)}</ul>` : html`<${Muted}>No sessions yet.<//>`} />`;
}

function ToolSearch() {
  const [result, setResult] = useState(/** @type {{ status: string, hits: any[] }} */ ({ status: "", hits: [] }));
  const search = async (event) => {
    event.preventDefault();
    const query = String(new FormData(event.currentTarget).get("q") ?? "").trim();
    if (!query) return;
    setResult({ status: "Searching…", hits: [] });
    try {
      const body = await api("/tools/search", { params: { q: query, limit: 10 } });
      if (!body.configured) return setResult({ status: "Tool search is not configured on this gateway.", hits: [] });
      setResult({ status: toolSearchStatus(body.search), hits: body.search.results ?? [] });
    } catch (error) {
      setResult({ status: `Search failed: ${errorText(error)}`, hits: [] });
    }
  };
  const maxScore = Math.max(...result.hits.map((hit) => Number(hit.score) || 0), 1e-9);
  return html`<form id="tool-search-form" class="inline-form" role="search" onSubmit=${search}>
      <label for="tool-search-input">Search tools</label>
      <input id="tool-search-input" name="q" type="search" required maxlength="500" aria-describedby="tool-search-help" />
      <button type="submit">Search</button>
      <span class="hint" id="tool-search-help">Shows what <code>search_tools</code> returns, with scores.</span>
    </form>
    <p id="tool-search-status" class="status-line" role="status">${result.status}</p>
    <div id="tool-search-results">
      ${result.hits.length > 0 &&
      html`<${DataTable}
      caption="Tool search results with scores"
      className="tool-results"
      columns=${["#", "Tool", "Score", "Description"]}
      rows=${result.hits.map((hit, index) => {
        const score = Number(hit.score) || 0;
        return {
          key: hit.id,
          attributes: { class: "tool-hit", "data-tool-id": hit.id },
          cells: [String(index + 1), html`<code>${hit.id}</code>`, html`<span class="score">${score.toFixed(3)}</span> <meter min="0" max=${maxScore} value=${score} aria-label=${`Score of ${hit.id}`}></meter>`, hit.description ?? ""],
        };
      })}
    />`}
  </div>`;
}

export function ToolsPanel({ version }) {
  return html`<${LoadedPanel} id="tools" title="Tool zoo" bodyId="tool-servers-body" path="/tools/servers" version=${version} render=${({ servers }) =>
    html`<${DataTable}
        caption="Downstream MCP servers"
        empty="No downstream servers configured."
        captionHidden=${false}
        className="tool-servers"
        columns=${["Server", "Mode", "Connection", "Tools", "Last error"]}
        rows=${servers.map((server) => ({
          key: server.name,
          attributes: { "data-server": server.name },
          numeric: [3],
          cells: [
            html`${server.name}${server.transport && html`<span class="muted small block">${server.transport}</span>`}`,
            html`<span class=${`badge mode-${server.mode}`}>${server.mode}</span>`,
            html`<span class=${`badge ${server.connected ? "connected" : "disconnected"}`}>${server.connected ? "connected" : "not connected"}</span>${server.state && html`<span class="muted small block">${server.state}</span>`}`,
            String(server.toolCount),
            html`<span class="muted">${server.lastError ?? "—"}</span>`,
          ],
        }))}
      />`}>
    <${ToolSearch} />
  <//>`;
}
