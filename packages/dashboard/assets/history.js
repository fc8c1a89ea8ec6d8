/** The history search box: past turns by keywords, tag, session, backend, flow and time (what `search_history` finds). */
import { useState } from "preact/hooks";
import { api } from "./api.js";
import { formatTime, historyParams, isoOf, routeOf } from "./format.js";
import { Panel, errorText, html } from "./ui.js";

const FIELDS = [
  ["q", "Keywords", "search", { maxlength: 1000 }],
  ["tag", "Tag", "text", { maxlength: 64, placeholder: "project:falcon" }],
  ["session", "Session", "text", { maxlength: 128 }],
  ["backend", "Backend", "text", { maxlength: 64 }],
  ["flow", "Flow id", "text", { maxlength: 200 }],
  ["from", "Asked from", "datetime-local", {}],
  ["to", "Asked until", "datetime-local", {}],
];

function Hit({ hit }) {
  const { turn } = hit;
  return html`<li class="history-hit" data-session-id=${hit.sessionId}>
    <p class="muted small">
      <span class="session-id">${hit.sessionId}</span> · <time datetime=${isoOf(turn.askedAt)}>${formatTime(turn.askedAt, true)}</time>
      ${turn.flowId && ` · ${routeOf(turn)}`}${hit.matchedWords > 0 && ` · ${hit.matchedWords} matching ${hit.matchedWords === 1 ? "word" : "words"}`}
    </p>
    ${turn.tags?.length > 0 && html`<ul class="chips" aria-label="Tags">${turn.tags.map((tag) => html`<li class="chip">${tag}</li>`)}</ul>`}
    <p class="turn-question"><span class="turn-label">Q: </span>${turn.question}</p>
    <p class="turn-answer"><span class="turn-label">A: </span>${turn.answer}</p>
  </li>`;
}

export function HistoryPanel() {
  const [result, setResult] = useState(/** @type {{ status: string, hits: any[], params?: Record<string, string>, next?: string }} */ ({ status: "", hits: [] }));
  /** @param {Record<string, string>} params @param {string} [cursor] */
  const search = async (params, cursor) => {
    setResult((previous) => ({ ...previous, status: "Searching…" }));
    try {
      const body = await api("/history", { params: cursor ? { ...params, cursor } : params });
      if (!body.configured) return setResult({ status: "History search is not configured on this gateway.", hits: [] });
      setResult((previous) => {
        const hits = cursor ? [...previous.hits, ...body.hits] : body.hits;
        return { status: `${hits.length} ${hits.length === 1 ? "turn" : "turns"} found${body.nextCursor ? ", more available" : ""}`, hits, params, next: body.nextCursor };
      });
    } catch (error) {
      setResult({ status: `Search failed: ${errorText(error)}`, hits: [] });
    }
  };
  const submit = (event) => {
    event.preventDefault();
    void search(historyParams(Object.fromEntries(new FormData(event.currentTarget))));
  };
  return html`<${Panel} id="history" title="History" hint="Past questions and answers of every session, by keywords (stemmed words), tag, session, backend, flow and time.">
    <form id="history-form" class="history-form" role="search" aria-label="Search history" onSubmit=${submit}>
      ${FIELDS.map(
        ([name, label, type, extra]) => html`<div class="field">
          <label for=${`history-${name}`}>${label}</label>
          <input id=${`history-${name}`} name=${name} type=${type} spellcheck="false" ...${extra} />
        </div>`,
      )}
      <div class="field"><button type="submit">Search history</button></div>
    </form>
    <p id="history-status" class="status-line" role="status">${result.status}</p>
    <ol id="history-results" class="history-hits">${result.hits.map((hit, index) => html`<${Hit} key=${index} hit=${hit} />`)}</ol>
    ${result.next && html`<button type="button" id="history-more" onClick=${() => search(result.params ?? {}, result.next)}>More results</button>`}
  <//>`;
}
