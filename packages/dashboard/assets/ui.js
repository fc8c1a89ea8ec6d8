/**
 * Shared pieces of the page: `html` (htm bound to preact), panels, tables, charts and the data
 * loading hook. Every value is rendered as text by preact: no markup string reaches the DOM (the
 * CSP enforces Trusted Types, so an HTML sink would throw).
 */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { api } from "./api.js";
import { sparkline } from "./format.js";

export const html = htm.bind(h);

export const Muted = ({ children }) => html`<p class="muted">${children}</p>`;
export const NotConfigured = () => html`<p class="muted not-configured">Not configured on this gateway.</p>`;
export const errorText = (error) => (error instanceof Error ? error.message : String(error));

/** A section of the page with its heading. */
export function Panel({ id, title, hint = undefined, hidden = false, attributes = {}, children }) {
  return html`<section id=${id} class="panel" aria-labelledby=${`${id}-heading`} hidden=${hidden} ...${attributes}>
    <h2 id=${`${id}-heading`}>${title}</h2>
    ${hint && html`<p class="hint">${hint}</p>`}
    ${children}
  </section>`;
}

/**
 * Calls `load` whenever `deps` change and keeps the latest `{ data }` or `{ error }` (the
 * previous data stays shown while a reload runs).
 */
export function useLoad(load, deps) {
  const [state, setState] = useState(/** @type {{ data?: any, error?: unknown }} */ ({}));
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setState({ data }),
      (error) => current && setState({ error }),
    );
    return () => {
      current = false;
    };
  }, deps);
  return state;
}

/** A panel body for loaded data: busy while loading, the error, "not configured", or `render(data)`. */
export function Loaded({ id, state, render, className = "panel-body" }) {
  const busy = state.data === undefined && state.error === undefined;
  let content;
  if (state.error !== undefined) content = html`<p class="error-text">Could not load: ${errorText(state.error)}</p>`;
  else if (busy) content = html`<${Muted}>Loading…<//>`;
  else if (state.data?.configured === false) content = html`<${NotConfigured} />`;
  else content = render(state.data);
  return html`<div id=${id} class=${className} aria-busy=${busy ? "true" : undefined}>${content}</div>`;
}

/** A {@link Panel} whose body (`bodyId`) shows `GET {apiPath}{path}` through `render`, reloaded when `version` changes. */
export function LoadedPanel({ id, title, hint = undefined, bodyId, path, params = {}, version, render, children = null }) {
  const state = useLoad(() => api(path, { params }), [version]);
  return html`<${Panel} id=${id} title=${title} hint=${hint}>
    <${Loaded} id=${bodyId} state=${state} render=${render} />
    ${children}
  <//>`;
}

/**
 * A table with a header row; `rows` are `{ key, attributes?, cells }` and the first cell of each is
 * its row header. Without rows it shows `empty`, when given.
 */
export function DataTable({ caption, columns, rows, className = "", captionHidden = true, empty = undefined }) {
  if (empty !== undefined && rows.length === 0) return html`<${Muted}>${empty}<//>`;
  return html`<div class="table-scroll">
    <table class=${`data-table ${className}`.trim()}>
      <caption class=${captionHidden ? "visually-hidden" : undefined}>${caption}</caption>
      <thead><tr>${columns.map((column) => html`<th scope="col">${column}</th>`)}</tr></thead>
      <tbody>
        ${rows.map(
          (row) => html`<tr key=${row.key} ...${row.attributes ?? {}}>
            ${row.cells.map((cell, index) => (index === 0 ? html`<th scope="row">${cell}</th>` : html`<td class=${row.numeric?.includes(index) ? "num" : undefined}>${cell}</td>`))}
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** An inline SVG sparkline of `values` (see `sparkline` in format.js), labelled for assistive technology. */
export function Sparkline({ values, ...options }) {
  const chart = sparkline(values, /** @type {any} */ (options));
  return html`<svg class="sparkline" role="img" viewBox=${`0 0 ${chart.width} ${chart.height}`} width=${chart.width} height=${chart.height} aria-label=${chart.description}>
    <title>${chart.description}</title>
    <line class="sparkline-baseline" x1="0" x2=${chart.width} y1=${chart.height - 1} y2=${chart.height - 1} />
    ${chart.lines.map((points) => html`<polyline class="sparkline-line" points=${points} />`)}
    ${chart.dots.map(([cx, cy]) => html`<circle class="sparkline-dot" cx=${cx} cy=${cy} r="1.8" />`)}
  </svg>`;
}

/** A captioned chart. */
export const Chart = ({ caption, children }) => html`<figure class="chart">${children}<figcaption>${caption}</figcaption></figure>`;

/** A definition list of `[term, value, key?, id?]`. */
export const Figures = ({ items, className = "figures", label = undefined, id = undefined }) =>
  html`<dl id=${id} class=${className} aria-label=${label}>
    ${items.map(([term, value, key, id]) => html`<div class=${className === "kpis" ? "kpi" : undefined} data-kpi=${key}><dt>${term}</dt><dd id=${id}>${value}</dd></div>`)}
  </dl>`;
