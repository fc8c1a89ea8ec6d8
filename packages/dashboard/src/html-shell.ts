const HTML_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);

/**
 * The page shell: settings in `<meta>` tags, the stylesheet and the entry module, which renders
 * the page. No data and no inline script or style are in the shell.
 */
export function renderHtmlShell(options: { basePath: string; apiPath: string; redacted: boolean }): string {
  const base = escapeHtml(options.basePath);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="referrer" content="no-referrer">
<meta name="afw-api-path" content="${escapeHtml(options.apiPath)}">
<meta name="afw-redacted" content="${options.redacted ? "true" : "false"}">
<title>Agentic Flywheel — dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${base}/assets/dashboard.css">
<script type="module" src="${base}/assets/dashboard.js"></script>
</head>
<body>
<noscript><p>The operator dashboard needs JavaScript (ES modules).</p></noscript>
</body>
</html>
`;
}
