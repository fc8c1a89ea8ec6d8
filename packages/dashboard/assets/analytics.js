/** The Analytics panel (hidden unless the gateway serves analytics). */
import { useState } from "preact/hooks";
import { api, download } from "./api.js";
import { analyticsKpis, feedbackText, formatMs, formatNumber, formatPercent, formatSigned, formatTime } from "./format.js";
import { DataTable, Figures, Loaded, Muted, errorText, html, useLoad } from "./ui.js";

const armCells = (name, stats) => [name, String(stats.queries), formatPercent(stats.successRate), formatMs(stats.latency?.p50Ms), formatMs(stats.latency?.p95Ms), formatPercent(stats.fallbackRate), feedbackText(stats.feedback)];

function Summary({ summary, onAnalyse }) {
  const flows = summary.topFlows ?? [];
  const intents = summary.intents ?? [];
  const experiments = summary.experiments ?? [];
  return html`<${Figures} items=${analyticsKpis(summary)} className="kpis" label="Analytics totals" id="analytics-totals" />
    <h3>Top flows</h3>
    <div id="analytics-flows" class="panel-body">
      <${DataTable}
        caption="The most used flows in the range"
        className="analytics-flows-table"
        empty="No flow was used in this range."
        columns=${["Flow", "Queries", "Success", "p50", "p95", "Fallbacks from / to", "Cache hits", ""]}
        rows=${flows.map((flow) => ({
          key: flow.flowId,
          attributes: { "data-flow-id": String(flow.flowId) },
          cells: [
            String(flow.flowId),
            String(flow.queries),
            formatPercent(flow.successRate),
            formatMs(flow.latency?.p50Ms),
            formatMs(flow.latency?.p95Ms),
            `${flow.fallbacksFrom} / ${flow.fallbacksTo}`,
            String(flow.cacheHits),
            html`<button type="button" class="analyze-flow" aria-label=${`Analyse ${flow.flowId}`} onClick=${() => onAnalyse(String(flow.flowId))}>Analyse</button>`,
          ],
        }))}
      />
    </div>
    <h3>Intents</h3>
    <${DataTable}
      caption="Queries per intent"
      empty="No classified queries in this range."
      columns=${["Intent", "Queries", "Share", "Success", "Fallback rate", "Mean confidence"]}
      rows=${intents.map((intent) => ({
        key: intent.intent,
        attributes: { "data-intent": String(intent.intent) },
        cells: [String(intent.intent), String(intent.queries), formatPercent(intent.share), formatPercent(intent.successRate), formatPercent(intent.fallbackRate), formatNumber(intent.meanConfidence)],
      }))}
    />
    <h3>A/B experiments</h3>
    <div id="analytics-experiments">
      ${experiments.length === 0
        ? html`<${Muted}>No A/B experiment saw traffic in this range.<//>`
        : experiments.map(
            (experiment) => html`<div class="experiment" data-experiment-id=${String(experiment.experimentId)}>
              <h4>${experiment.experimentId} · variant share ${formatPercent(experiment.variantShare)}</h4>
              <${DataTable}
                caption=${`A/B experiment ${experiment.experimentId}: control against variant`}
                columns=${["Arm", "Queries", "Success", "p50", "p95", "Fallback rate", "Feedback"]}
                rows=${[
                  { key: "control", attributes: { "data-arm": "control" }, cells: armCells("control", experiment.control) },
                  { key: "variant", attributes: { "data-arm": "variant" }, cells: armCells("variant", experiment.variant) },
                ]}
              />
              <p class="muted small experiment-difference">
                Variant − control: success ${formatSigned(experiment.difference?.successRate, 3)}, p50 ${formatSigned(experiment.difference?.p50Ms, 0)} ms, p95 ${formatSigned(experiment.difference?.p95Ms, 0)} ms
              </p>
            </div>`,
          )}
    </div>`;
}

function FlowAnalysis({ flowId, range }) {
  const state = useLoad(() => api(`/analytics/flows/${encodeURIComponent(flowId)}`, { params: { range } }), [flowId, range]);
  return html`<${Loaded} state=${state} className="flow-detail" render=${({ analysis }) => html`<div class="flow-analysis" data-flow-id=${String(analysis.flowId)}>
    <h4>Analysis of ${analysis.flowId}</h4>
    <p class="figures">
      ${analysis.usage?.queries ?? 0} queries · success ${formatPercent(analysis.usage?.successRate)} · p50 ${formatMs(analysis.usage?.latency?.p50Ms)} · p95 ${formatMs(analysis.usage?.latency?.p95Ms)} ·
      fallback source ${formatPercent(analysis.fallback?.asSource?.share)} · target ${formatPercent(analysis.fallback?.asTarget?.share)}
    </p>
    ${(analysis.recommendations ?? []).length === 0
      ? html`<${Muted}>No recommendation.<//>`
      : html`<ul class="recommendations" aria-label=${`Recommendations for ${analysis.flowId}`}>
          ${analysis.recommendations.map((item) => html`<li class=${`recommendation severity-${String(item.severity).replace(/[^a-z]/g, "")}`}><span class="badge">${String(item.severity)}</span> ${String(item.message)}</li>`)}
        </ul>`}
  </div>`} />`;
}

function Learned({ learned }) {
  const adjustments = learned.adjustments ?? [];
  if (adjustments.length === 0) return html`<${Muted}>Nothing learned yet.<//>`;
  return html`<p class="hint">Added to the flow_match and performance components of a candidate's score; bounded by ±${learned.maxAdjustment}.</p>
    <${DataTable}
      caption="Learned routing adjustments per intent and flow"
      className="learned-table"
      columns=${["Intent / flow", "flow_match", "performance", "Samples", "Success", "Reason"]}
      rows=${adjustments.map((entry) => ({
        key: `${entry.intent} ${entry.flowId}`,
        attributes: { "data-intent": String(entry.intent), "data-flow-id": String(entry.flowId) },
        cells: [`${entry.intent} → ${entry.flowId}`, formatSigned(entry.flowMatch), formatSigned(entry.performance), formatNumber(entry.samples), formatPercent(entry.successRate), html`<span class="muted small">${String(entry.reason)}</span>`],
      }))}
    />`;
}

function Proposal({ proposal }) {
  return html`<li class="proposal" data-kind=${String(proposal.kind)}>
    <span class="badge">${proposal.kind === "intent-pattern" ? `pattern for ${proposal.intent}` : "new flow?"}</span>${" "}
    <span class="chips-inline">${(proposal.keywords ?? []).map((keyword) => html`<code class="keyword">${String(keyword)}</code>`)}</span>
    <span class="muted small block">${String(proposal.reason)}</span>
    ${(proposal.examples ?? []).length > 0 && html`<span class="muted small block proposal-example">e.g. “${proposal.examples[0]}”</span>`}
  </li>`;
}

function Patterns({ patterns }) {
  const { proposals = [], clusters = [], fallbackIntents = [], lowConfidence = [] } = patterns;
  return html`<p class="muted">${patterns.questionsAnalysed} of ${patterns.queries} questions clustered; ${clusters.length} cluster${clusters.length === 1 ? "" : "s"}.</p>
    ${proposals.length === 0 ? html`<${Muted}>No proposal: no uncertain or troubled group of questions.<//>` : html`<ul class="proposals" aria-label="Proposals">${proposals.map((proposal) => html`<${Proposal} proposal=${proposal} />`)}</ul>`}
    ${fallbackIntents.length > 0 &&
    html`<p class="fallback-intents">Fallback-prone intents: ${fallbackIntents.map((item) => `${item.intent} (fallback ${formatPercent(item.fallbackRate)}, failure ${formatPercent(item.failureRate)})`).join(", ")}</p>`}
    ${clusters.length > 0 &&
    html`<${DataTable}
      caption="Clusters of similar questions"
      className="clusters-table"
      columns=${["Representative question", "Size", "Intent", "Confidence", "Fallback rate", "Keywords"]}
      rows=${clusters.map((cluster) => ({
        key: cluster.id,
        attributes: { "data-cluster-id": String(cluster.id) },
        cells: [String(cluster.representative), String(cluster.size), String(cluster.dominantIntent ?? "—"), formatNumber(cluster.meanConfidence), formatPercent(cluster.fallbackRate), (cluster.keywords ?? []).join(", ")],
      }))}
    />`}
    ${lowConfidence.length > 0 &&
    html`<details class="low-confidence">
      <summary>${lowConfidence.length} low-confidence question${lowConfidence.length === 1 ? "" : "s"}</summary>
      <ul>${lowConfidence.map((item) => html`<li data-trace-id=${String(item.traceId)}><span class="low-confidence-question">${item.question === null ? "(question not kept)" : String(item.question)}</span> — ${item.intent ?? "no intent"} ${formatNumber(item.confidence)}</li>`)}</ul>
    </details>`}`;
}

function YamlBlock({ yaml }) {
  const [status, setStatus] = useState("");
  const copy = async (event) => {
    try {
      await navigator.clipboard.writeText(yaml);
      setStatus("Copied.");
    } catch {
      // no clipboard access: select the text for a manual copy
      const pre = event.currentTarget.parentElement?.querySelector("pre");
      if (pre) getSelection()?.selectAllChildren(pre);
      setStatus("Selected: press Ctrl+C (⌘C) to copy.");
    }
  };
  return html`<div id="analytics-yaml-block" class="yaml-block">
    <p class="hint" id="analytics-yaml-help">The proposals as <code>routing.intentPatterns</code>: merge them into the gateway configuration, then reload it with <code>SIGHUP</code>.</p>
    <pre id="analytics-yaml" class="yaml" tabindex="0" aria-describedby="analytics-yaml-help">${yaml}</pre>
    <button type="button" id="analytics-copy-yaml" onClick=${copy}>Copy YAML</button>
    <span class="status-line" id="analytics-copy-status" role="status">${status}</span>
  </div>`;
}

function ExportForm({ range }) {
  const [status, setStatus] = useState("");
  const submit = async (event) => {
    event.preventDefault();
    const format = event.submitter?.value === "csv" ? "csv" : "json";
    const groupBy = String(new FormData(event.currentTarget).get("groupBy") ?? "flow");
    setStatus("Preparing the download…");
    try {
      const size = await download("/analytics/export", { range, format, groupBy }, `afw-metrics-${groupBy}-${range}.${format}`, format === "csv" ? "text/csv" : "application/json");
      setStatus(`Downloaded metrics by ${groupBy} (${format.toUpperCase()}, ${size} bytes).`);
    } catch (error) {
      setStatus(`Could not export: ${errorText(error)}`);
    }
  };
  return html`<form id="analytics-export-form" class="inline-form" onSubmit=${submit}>
    <label for="analytics-export-group">Export metrics by</label>
    <select id="analytics-export-group" name="groupBy">${["flow", "backend", "intent"].map((group) => html`<option value=${group}>${group}</option>`)}</select>
    <button type="submit" id="analytics-export-json" value="json">Download JSON</button>
    <button type="submit" id="analytics-export-csv" value="csv">Download CSV</button>
    <span class="status-line" id="analytics-export-status" role="status">${status}</span>
  </form>`;
}

/** The panel: hidden when the gateway serves no analytics (or the token is missing). */
export function AnalyticsPanel({ version, metricsExport }) {
  const [range, setRange] = useState("24h");
  const [flowId, setFlowId] = useState(/** @type {string | undefined} */ (undefined));
  const summary = useLoad(() => api("/analytics/summary", { params: { range } }).then(async (body) => (body.configured ? { ...body, learned: await api("/analytics/learned"), patterns: await api("/analytics/patterns", { params: { range } }) } : body)), [range, version]);
  const configured = summary.data?.configured;
  const loadedState = summary.error ? "error" : configured === false ? "unavailable" : summary.data?.rangeName === range ? "loaded" : "loading";
  const data = summary.data;
  return html`<section id="analytics" class="panel" aria-labelledby="analytics-heading" hidden=${configured === false || /** @type {any} */ (summary.error)?.status === 401} data-state=${loadedState} data-range=${data?.rangeName}>
    <h2 id="analytics-heading">Analytics</h2>
    <p class="hint">What the gateway recorded over a time range: usage, success, latency, the A/B experiments, what routing learned and the intent patterns proposed from the questions.</p>
    <form class="inline-form" onSubmit=${(event) => event.preventDefault()}>
      <label for="analytics-range">Range</label>
      <select id="analytics-range" name="range" value=${range} onChange=${(event) => (setFlowId(undefined), setRange(event.currentTarget.value))}>
        <option value="1h">Last hour</option><option value="24h">Last 24 hours</option><option value="7d">Last 7 days</option>
      </select>
      <span class="status-line" id="analytics-status" role="status">
        ${data?.summary && `${formatTime(data.summary.range?.from, true)} – ${formatTime(data.summary.range?.to, true)}${data.summary.truncated ? "; the range holds more events than one report reads: the newest are shown." : ""}`}
      </span>
    </form>
    ${summary.error && html`<p class="error-text">Could not load: ${errorText(summary.error)}</p>`}
    ${data?.summary && html`<${Summary} summary=${data.summary} onAnalyse=${setFlowId} />`}
    <div id="analytics-flow-detail" aria-live="polite">${flowId && html`<${FlowAnalysis} flowId=${flowId} range=${range} />`}</div>
    <h3>Learned routing adjustments</h3>
    <div id="analytics-learned" class="panel-body">
      ${data?.learned && (data.learned.configured ? html`<${Learned} learned=${data.learned.learned} />` : html`<${Muted}>The learned routing prior is off on this gateway.<//>`)}
    </div>
    <h3>Question patterns and proposals</h3>
    <div id="analytics-patterns" class="panel-body">
      ${data?.patterns && (data.patterns.configured ? html`<${Patterns} patterns=${data.patterns.patterns} />` : html`<${Muted}>Pattern analysis is not available on this gateway (it needs an embedder).<//>`)}
    </div>
    ${data?.patterns?.intentPatternsYaml && html`<${YamlBlock} yaml=${data.patterns.intentPatternsYaml} />`}
    ${metricsExport && html`<${ExportForm} range=${range} />`}
  </section>`;
}

