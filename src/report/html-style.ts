/**
 * The report's one stylesheet: light, readable on screen and on paper. Fonts are only
 * system fonts (a report loads nothing); the stacks name the usual CJK fonts of each
 * platform so Chinese and Japanese text renders wherever the report is opened.
 */
export const REPORT_CSS = `
:root {
  --text: #1f2328;
  --muted: #59636e;
  --line: #d1d9e0;
  --code-bg: #f6f8fa;
  --accent: #0550ae;
  --warn-bg: #fff8e5;
  --warn-line: #d4a72c;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0;
  color: var(--text);
  background: #ffffff;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans",
    "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", "Noto Sans SC",
    "Source Han Sans SC", "WenQuanYi Micro Hei", "Hiragino Sans", "Yu Gothic", "Malgun Gothic",
    sans-serif;
  font-size: 16px;
  line-height: 1.6;
}
main { max-width: 52rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
h1, h2, h3, h4 { line-height: 1.3; margin: 1.6em 0 0.6em; break-after: avoid; }
h1 { font-size: 1.9rem; margin-top: 0; }
h2 { font-size: 1.45rem; padding-bottom: 0.3em; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.2rem; }
h4 { font-size: 1.05rem; color: var(--muted); }
p, ul, ol, blockquote, pre, table { margin: 0 0 1em; }
a { color: var(--accent); }
blockquote { margin-left: 0; padding: 0.2em 1em; color: var(--muted); border-left: 4px solid var(--line); }
code, pre {
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", "Noto Sans Mono CJK SC",
    "Noto Sans CJK SC", "Microsoft YaHei", monospace;
  font-size: 0.875em;
}
code { background: var(--code-bg); padding: 0.1em 0.35em; border-radius: 4px; }
pre {
  background: var(--code-bg);
  border: 1px solid var(--line);
  border-radius: 6px;
  padding: 0.75em 1em;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}
pre code { background: none; padding: 0; font-size: 1em; }
pre code.language-text { color: #24292f; }
img { display: block; max-width: 100%; height: auto; margin: 0.5em 0 1em; break-inside: avoid; }
table { border-collapse: collapse; display: block; overflow-x: auto; }
th, td { border: 1px solid var(--line); padding: 0.35em 0.7em; }
th { background: var(--code-bg); }
hr { border: 0; border-top: 1px solid var(--line); }
strong { font-weight: 600; }
@media print {
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  a { color: inherit; }
  pre { border-color: #bbb; }
  h2 { break-before: auto; }
}
@page { margin: 18mm 16mm; }
`;
