/** The Cache panel (counters, hit rate, entries by flow, clearing with confirmation) and the semantic cache panel. */
import { useRef, useState } from "preact/hooks";
import { api } from "./api.js";
import { formatPercent, semanticCacheItems } from "./format.js";
import { Chart, DataTable, Figures, Loaded, Panel, Sparkline, errorText, html, useLoad } from "./ui.js";

const count = (value) => (typeof value === "number" ? String(value) : "—");

/** The confirmation dialog; `ask(message)` resolves true when the operator confirms. */
function useConfirm() {
  const dialog = useRef(/** @type {HTMLDialogElement | null} */ (null));
  const [message, setMessage] = useState("");
  const pending = useRef(/** @type {{ resolve: (value: boolean) => void, opener: Element | null } | undefined} */ (undefined));
  const finish = (value) => {
    if (dialog.current?.open) dialog.current.close();
    const { resolve, opener } = pending.current ?? {};
    pending.current = undefined;
    resolve?.(value);
    if (opener instanceof HTMLElement) opener.focus();
  };
  const ask = (text) =>
    new Promise((resolve) => {
      pending.current = { resolve, opener: document.activeElement };
      setMessage(text);
      dialog.current?.showModal();
      dialog.current?.querySelector("button")?.focus();
    });
  const onCancel = (event) => {
    event.preventDefault();
    finish(false);
  };
  const element = html`<dialog id="confirm-dialog" ref=${dialog} aria-labelledby="confirm-title" aria-describedby="confirm-message" onCancel=${onCancel}>
    <h2 id="confirm-title">Please confirm</h2>
    <p id="confirm-message">${message}</p>
    <div class="dialog-actions">
      <button type="button" id="confirm-cancel" onClick=${() => finish(false)}>Cancel</button>
      <button type="button" id="confirm-accept" class="danger" onClick=${() => finish(true)}>Clear</button>
    </div>
  </dialog>`;
  return { ask, element };
}

function CacheBody({ cache }) {
  const stats = cache.stats;
  const byFlow = cache.byFlow ?? [];
  const figures = stats && [
    ["Hit rate", formatPercent(stats.hitRate), undefined, "cache-hit-rate"],
    ["Hits", String(stats.hits)],
    ["Semantic hits", String(stats.semanticHits)],
    ["Misses", String(stats.misses)],
    ["Writes", String(stats.writes)],
    ["Errors", String(stats.errors)],
  ];
  return html`${figures && html`<${Figures} items=${figures} />`}
    <${Chart} caption="Hit rate, last hour">
      <${Sparkline} values=${(cache.hitRateSeries ?? []).map((point) => point.hitRate)} label="Cache hit rate" format=${formatPercent} min=${0} max=${1} width=${360} height=${48} />
    <//>
    <${DataTable}
      caption="Entries by flow"
      captionHidden=${false}
      className="cache-flows"
      empty="No cached entries."
      columns=${["Flow", "Entries", "Hits", "Misses", "Writes"]}
      rows=${byFlow.map((flow) => ({
        key: flow.flowId,
        attributes: { "data-flow-id": flow.flowId },
        numeric: [1, 2, 3, 4],
        cells: [flow.flowId, html`<span class="cache-entries">${count(flow.entries)}</span>`, count(flow.hits), count(flow.misses), count(flow.writes)],
      }))}
    />`;
}

export function CachePanel({ version, onCleared }) {
  const state = useLoad(() => api("/cache"), [version]);
  const flows = useLoad(() => api("/flows"), [version]);
  const [status, setStatus] = useState("");
  const confirm = useConfirm();
  const choices = new Map((flows.data?.flows ?? []).map((flow) => [flow.id, `${flow.name} (${flow.id})`]));
  for (const flow of state.data?.cache?.byFlow ?? []) if (!choices.has(flow.flowId)) choices.set(flow.flowId, flow.flowId);

  const clear = async (selector, what) => {
    if (!(await confirm.ask(`Clear the cached answers of ${what}? This cannot be undone.`))) return setStatus("Nothing cleared.");
    setStatus(`Clearing ${what}…`);
    try {
      const { removed } = await api("/cache/clear", { method: "POST", body: selector });
      setStatus(`Removed ${removed} cached ${removed === 1 ? "entry" : "entries"} (${what}).`);
      onCleared();
    } catch (error) {
      setStatus(`Could not clear ${what}: ${errorText(error)}`);
    }
  };
  const submit = (name, toSelector) => (event) => {
    event.preventDefault();
    const input = event.currentTarget.elements.namedItem(name);
    const value = String(input?.value ?? "").trim();
    if (!value || !input.checkValidity()) return setStatus(name === "flowId" ? "Choose a flow first." : "Enter a valid session id first.");
    void clear(toSelector(value), `${name === "flowId" ? "flow" : "session"} ${value}`);
  };
  return html`<${Panel} id="cache" title="Cache">
    <${Loaded} id="cache-body" state=${state} render=${({ cache }) => html`<${CacheBody} cache=${cache} />`} />
    <div class="cache-actions" id="cache-actions">
      <h3>Clear cached answers</h3>
      <form id="clear-flow-form" class="inline-form" onSubmit=${submit("flowId", (flowId) => ({ flowId }))}>
        <label for="clear-flow-select">Flow</label>
        <select id="clear-flow-select" name="flowId" required>
          <option value="">Choose a flow…</option>
          ${[...choices].map(([id, label]) => html`<option key=${id} value=${id}>${label}</option>`)}
        </select>
        <button type="submit" id="clear-flow-button">Clear flow</button>
      </form>
      <form id="clear-session-form" class="inline-form" onSubmit=${submit("sessionId", (sessionId) => ({ sessionId }))}>
        <label for="clear-session-input">Session id</label>
        <input id="clear-session-input" name="sessionId" type="text" required maxlength="128" pattern="[A-Za-z0-9._:@\\-]+" spellcheck="false" />
        <button type="submit" id="clear-session-button">Clear session</button>
      </form>
      <button type="button" class="danger" id="clear-all-button" onClick=${() => clear({ all: true }, "every flow and session")}>Clear all</button>
      <p id="cache-status" class="status-line" role="status">${status}</p>
    </div>
    ${confirm.element}
  <//>`;
}

/** The semantic answer cache: hit rate and guard rejections; hidden when the gateway has none. */
export function SemanticCachePanel({ version }) {
  const state = useLoad(() => api("/cache/semantic"), [version]);
  const items = semanticCacheItems(state.data?.stats);
  if (!items) return null;
  return html`<${Panel} id="semantic-cache" title="Semantic cache" hint="Answers reused for similar questions; the guard refuses those that differ in a number, a name or a negation.">
    <${Figures} items=${items} className="kpis" label="Semantic cache" />
  <//>`;
}
