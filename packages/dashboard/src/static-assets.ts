import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setSecurityHeaders } from "./http-responses.js";

interface StaticAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

const JS = "text/javascript; charset=utf-8";
/** The page's own modules and style (in the assets directory). */
const PAGE_ASSETS = ["dashboard.js", "api.js", "format.js", "ui.js", "feed.js", "panels.js", "cache-panel.js", "analytics.js", "history.js", "dashboard.css"];
const requireFromHere = createRequire(import.meta.url);
/** preact, htm and eventsource-parser as ES modules from their packages, by served name, with the bare specifier that names each. */
const VENDOR: Readonly<Record<string, { specifier: string; path: () => string }>> = {
  "preact.js": { specifier: "preact", path: () => requireFromHere.resolve("preact") },
  "hooks.js": { specifier: "preact/hooks", path: () => requireFromHere.resolve("preact/hooks") },
  "htm.js": { specifier: "htm", path: () => join(dirname(requireFromHere.resolve("htm")), "htm.mjs") },
  "eventsource-parser.js": { specifier: "eventsource-parser", path: () => join(dirname(requireFromHere.resolve("eventsource-parser")), "index.js") },
};
const BARE_IMPORT = /(\bfrom\s*|\bimport\s*)(["'])(preact\/hooks|preact|htm|eventsource-parser)\2/g;

// Both src/ (tests) and dist/ (built) sit one level below the package root, next to assets/.
const ASSETS_DIRECTORY = fileURLToPath(new URL("../assets/", import.meta.url));

const etagOf = (body: Buffer | string): string => `"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"`;

/** Sends a static body with the security headers, an ETag and 304 for a matching `If-None-Match`. */
function sendStatic(req: IncomingMessage, res: ServerResponse, { body, contentType, etag }: StaticAsset): void {
  setSecurityHeaders(res);
  const headers = { "content-type": contentType, "cache-control": "no-cache", etag };
  if (req.headers["if-none-match"] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, "content-length": body.length });
  res.end(req.method === "HEAD" ? undefined : body);
}

/**
 * The page and its files under `basePath`: the HTML shell, the page's modules and style, and
 * preact, htm and eventsource-parser served from their packages. Bare imports (`preact`, `preact/hooks`, `htm`, `eventsource-parser`) in
 * the served scripts are pointed at `{basePath}/assets/vendor/…`, so the browser needs neither an
 * import map (an inline script, which the CSP forbids) nor a bundler.
 */
export function createPageAssets(options: { basePath: string; html: string }) {
  const html: StaticAsset = { body: Buffer.from(options.html, "utf8"), contentType: "text/html; charset=utf-8", etag: etagOf(options.html) };
  const vendorPath = Object.fromEntries(Object.entries(VENDOR).map(([name, { specifier }]) => [specifier, `${options.basePath}/assets/vendor/${name}`]));
  const loaded = new Map<string, Promise<StaticAsset>>();
  const fileOf = (rest: string): string | undefined => {
    const page = /^\/assets\/([a-z-]+\.(?:js|css))$/.exec(rest)?.[1];
    if (page !== undefined) return PAGE_ASSETS.includes(page) ? join(ASSETS_DIRECTORY, page) : undefined;
    const vendor = VENDOR[/^\/assets\/vendor\/([a-z-]+\.js)$/.exec(rest)?.[1] ?? ""];
    return vendor?.path();
  };
  const load = (rest: string, file: string): Promise<StaticAsset> => {
    let asset = loaded.get(rest);
    if (!asset) {
      asset = readFile(file).then((raw) => {
        if (file.endsWith(".css")) return { body: raw, contentType: "text/css; charset=utf-8", etag: etagOf(raw) };
        const body = Buffer.from(raw.toString("utf8").replace(BARE_IMPORT, (_match, keyword: string, _quote, specifier: string) => `${keyword}"${vendorPath[specifier]}"`), "utf8");
        return { body, contentType: JS, etag: etagOf(body) };
      });
      asset.catch(() => loaded.delete(rest));
      loaded.set(rest, asset);
    }
    return asset;
  };
  return {
    /** True for the shell and the files it loads (`rest` is the path below `basePath`). */
    isPublic(rest: string): boolean {
      return rest === "" || rest === "/" || rest === "/index.html" || fileOf(rest) !== undefined;
    },
    /** Serves `rest`; resolves false when it is not a page file. */
    async serve(req: IncomingMessage, res: ServerResponse, rest: string): Promise<boolean> {
      if (rest === "" || rest === "/" || rest === "/index.html") {
        sendStatic(req, res, html);
        return true;
      }
      const file = fileOf(rest);
      if (file === undefined) return false;
      sendStatic(req, res, await load(rest, file));
      return true;
    },
  };
}
