// The page shell every page shares: one inline stylesheet, no scripts, no external requests.
import { html, trusted, type Html } from "./html.js";

const CSS = `
:root{color-scheme:light;--fg:#1b1f24;--muted:#4a535d;--line:#d0d7de;--bg:#fff;--soft:#f4f6f8;--pass:#116329;--fail:#a40e26;--miss:#7a4a00;--cand:#0b5f2a;}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1100px;margin:0 auto;padding:16px 20px 48px}
header.site{font-size:13px;color:var(--muted);border-bottom:1px solid var(--line);padding:8px 20px}
header.site a{color:var(--muted)}
h1{margin:12px 0 4px;font-size:22px}
h2{margin:32px 0 8px;font-size:19px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{margin:16px 0 6px;font-size:16px}
a{color:#0a4fa6}
code,pre,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:13px}
pre{background:var(--soft);border:1px solid var(--line);padding:10px;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:6px 0}
table{border-collapse:collapse;width:100%;margin:6px 0}
caption{text-align:left;padding:2px 0}
th,td{text-align:left;vertical-align:top;border-bottom:1px solid var(--line);padding:5px 8px}
th{background:var(--soft);font-weight:600}
td.break,td .break{word-break:break-all}
.banner{border:3px solid;border-radius:8px;padding:14px 18px;margin:10px 0 6px}
.banner.CANDIDATE{border-color:var(--cand);background:#e9f6ee}
.banner.FAIL{border-color:var(--fail);background:#fcebee}
.verdict{font-size:44px;font-weight:800;letter-spacing:.02em;line-height:1.1;margin:0}
.CANDIDATE .verdict{color:var(--cand)}
.FAIL .verdict{color:var(--fail)}
.class{font-size:26px;font-weight:700;margin-left:10px}
.lede{font-size:17px;margin:6px 0 0}
.status{font-weight:700;white-space:nowrap}
.status.pass{color:var(--pass)}
.status.fail{color:var(--fail)}
.status.missing{color:var(--miss)}
.muted{color:var(--muted)}
ul.findings{margin:4px 0;padding-left:20px}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:6px 0}
dl.kv dt{font-weight:600}
dl.kv dd{margin:0;word-break:break-all}
svg.timeline{width:100%;height:auto;background:var(--soft);border:1px solid var(--line);border-radius:4px}
svg.timeline text{font:12px system-ui,sans-serif}
svg.timeline text.lane{fill:var(--fg);font-weight:600}
svg.timeline text.in{fill:#fff}
svg.timeline text.axis{fill:var(--muted)}
svg.chart{width:100%;height:auto;background:var(--soft);border:1px solid var(--line);border-radius:4px;margin:4px 0}
svg.chart text{font:11px system-ui,sans-serif;fill:var(--muted)}
.banner.OVERRIDDEN{border-color:#9a6700;background:#fff8d6}
.note{background:var(--soft);border-left:4px solid var(--line);padding:6px 10px;margin:8px 0}
nav.pages a{margin-right:12px}
section.brief{border:2px solid var(--cand);border-radius:8px;padding:4px 16px 10px;margin:14px 0}
section.brief h2{border-bottom:none;margin-top:10px}
tr.unneeded td{background:#fff1c2}
tr.unchecked td{background:#f7efe3}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.hunk{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:4px 10px}
.hunk.unneeded{border:3px solid #9a6700;background:#fff8d6}
.hunk.unchecked{border-left:6px solid var(--miss);background:#fbf6ee}
.hunk summary{cursor:pointer;padding:2px 0}
p.hunk-head{margin:4px 0}
table.diff{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:13px;margin:4px 0 6px;background:var(--bg)}
table.diff th{font:600 12px system-ui,sans-serif;padding:2px 8px}
table.diff td{border:none;padding:0 8px}
table.diff td.num{color:var(--muted);text-align:right;width:1%;white-space:nowrap}
table.diff td.op{width:1%;font-weight:700}
table.diff td.code{white-space:pre-wrap;word-break:break-all;tab-size:4;unicode-bidi:isolate}
table.diff tr.del td{background:#ffebe9}
table.diff tr.add td{background:#dafbe1}
.hunk.unneeded table.diff tr.add td{background:#ffe08a}
table.diff tr.more td{color:var(--muted);font-style:italic}
.char{border:1px solid var(--fail);border-radius:3px;padding:0 2px;color:var(--fail);font-size:11px}
.cut{color:var(--muted);font-style:italic}
p.hidden-chars{color:var(--fail);margin:4px 0}
`;

export function page(title: string, body: Html): string {
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${title}</title><style>${trusted(CSS)}</style></head><body><header class="site">Ranex Gate · <a href="/ranex/public-key">public key</a></header><main>${body}</main></body></html>`.text}\n`;
}
