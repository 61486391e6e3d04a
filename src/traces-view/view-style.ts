/**
 * The Traces view's one stylesheet, served at `/ui/assets/view.css` (and inlined, under its CSP
 * hash, in the sign-in page, which must look right before there is a session to load assets
 * with). No web fonts, no images: nothing from another origin (clusters are often air-gapped).
 */
const INDENT_LEVELS = 24;

export const VIEW_CSS = `
:root{--fg:#1d2430;--muted:#5f6b7a;--line:#e3e7ee;--bg:#f6f8fb;--card:#fff;--accent:#2457c5;--request:#2f6fdb;--attempt:#1a9a8a;--failed:#d13a3a;--log:#7a4fd0;--feedback:#c98a06;--other:#8a94a3}
*{box-sizing:border-box}
html{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
a{color:var(--accent);text-decoration:none}
a:hover{text-decoration:underline}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
header.top{display:flex;align-items:center;gap:1.5rem;padding:.6rem 1.5rem;background:#1d2430;color:#fff}
header.top a{color:#fff}
header.top .brand{font-weight:600;letter-spacing:.01em}
header.top nav{display:flex;gap:1rem;flex:1}
header.top nav a{color:#c9d3e3}
header.top form{margin:0}
header.top button{background:transparent;color:#c9d3e3;border:1px solid #4a5568;border-radius:4px;padding:.2rem .7rem;cursor:pointer;font:inherit}
main{padding:1.2rem 1.5rem 3rem;max-width:1600px;margin:0 auto}
h1{font-size:1.35rem;margin:.2rem 0 .8rem;font-weight:600;word-break:break-all}
h2{font-size:1.05rem;margin:1.6rem 0 .6rem;font-weight:600}
.muted{color:var(--muted)}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:1rem 1.2rem}
.notice{background:#fff7e6;border:1px solid #f1d08a;border-radius:8px;padding:1rem 1.2rem;max-width:48rem}
.notice.error{background:#fdecec;border-color:#f0b4b4}
form.filters{display:flex;flex-wrap:wrap;gap:.6rem 1rem;align-items:flex-end;margin-bottom:1rem}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted);gap:.2rem}
form.filters label.check{flex-direction:row;align-items:center;gap:.4rem;font-size:13px;color:var(--fg);padding-bottom:.35rem}
input,select{font:inherit;padding:.3rem .45rem;border:1px solid #c8cfdb;border-radius:4px;background:#fff;color:var(--fg)}
input[type=text],input[type=search]{width:11rem}
input.short{width:6.5rem}
button.primary,.button{background:var(--accent);color:#fff;border:0;border-radius:4px;padding:.4rem .9rem;font:inherit;cursor:pointer}
.button.secondary{background:#e9eef7;color:var(--accent)}
table.traces{width:100%;border-collapse:collapse;background:var(--card);border:1px solid var(--line);border-radius:8px;overflow:hidden}
table.traces th,table.traces td{padding:.45rem .6rem;text-align:left;border-bottom:1px solid var(--line);white-space:nowrap;vertical-align:top}
table.traces th{font-size:12px;font-weight:600;color:var(--muted);background:#fafbfd}
table.traces td.num,table.traces th.num{text-align:right;font-variant-numeric:tabular-nums}
table.traces td.name{white-space:normal;max-width:28rem;word-break:break-word}
table.traces tr:hover td{background:#f4f7fd}
table.traces tfoot td{font-weight:600;background:#fafbfd}
td.failed{color:var(--failed);font-weight:600}
.pill{display:inline-block;padding:0 .45rem;border-radius:999px;background:#eef2f8;color:#36445a;font-size:12px;margin:0 .25rem .15rem 0}
.pill.bad{background:#fdecec;color:var(--failed)}
.summary-line{margin:.2rem 0 .9rem;color:var(--muted)}
.pager{display:flex;gap:1rem;align-items:center;margin-top:.8rem}
.totals{display:grid;grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));gap:.6rem;margin:.4rem 0 1rem}
.totals div{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.55rem .8rem}
.totals b{display:block;font-size:1.15rem;font-variant-numeric:tabular-nums}
.totals span{font-size:12px;color:var(--muted)}
.links{display:flex;gap:.6rem;flex-wrap:wrap;margin:.2rem 0 1rem}
.legend{display:flex;gap:1rem;font-size:12px;color:var(--muted);margin:.3rem 0 .5rem}
.legend .request-key{background:var(--request)}.legend .attempt-key{background:var(--attempt)}.legend .failed-key{background:var(--failed)}.legend .log-key{background:var(--log)}.legend .feedback-key{background:var(--feedback)}
.totals b.failed{color:var(--failed)}
.legend i{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.3rem;vertical-align:-1px}
.waterfall{background:var(--card);border:1px solid var(--line);border-radius:8px}
.waterfall .head,.waterfall details.span>summary{display:grid;grid-template-columns:minmax(14rem,2.2fr) 9.5rem 9rem 6.5rem 6.5rem 6rem 5.5rem minmax(12rem,3fr);gap:.5rem;align-items:center;padding:.28rem .6rem}
.waterfall .head{font-size:12px;font-weight:600;color:var(--muted);border-bottom:1px solid var(--line);background:#fafbfd;border-radius:8px 8px 0 0}
.waterfall details.span{border-bottom:1px solid #eef1f5;content-visibility:auto;contain-intrinsic-size:auto 30px}
.waterfall details.span[open]{background:#fbfcfe}
.waterfall details.span>summary{cursor:pointer;list-style:none}
.waterfall details.span>summary::-webkit-details-marker{display:none}
.waterfall details.span>summary:hover{background:#f4f7fd}
.waterfall .cell{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.waterfall .num{text-align:right;font-variant-numeric:tabular-nums}
.waterfall .name{display:flex;align-items:center;gap:.3rem}
.waterfall .name .text{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.fold{display:inline-block;flex:none;border:0;background:none;padding:0;cursor:pointer;color:var(--muted);font:inherit;min-width:1.2rem;text-align:left}
.fold .more{font-size:11px;color:var(--accent);margin-left:.2rem}
.role{font-size:11.5px;padding:0 .4rem;border-radius:3px;color:#fff;white-space:nowrap}
.request .role{background:var(--request)}.attempt .role{background:var(--attempt)}.log .role{background:var(--log)}.feedback .role{background:var(--feedback)}.other .role{background:var(--other)}
.failed .role{background:var(--failed)}
.failed .status{color:var(--failed);font-weight:600}
svg.bar{width:100%;height:12px;display:block;background:#f1f4f9;border-radius:2px}
svg.bar rect{fill:var(--other)}
.request svg.bar rect{fill:var(--request)}.attempt svg.bar rect{fill:var(--attempt)}.log svg.bar rect{fill:var(--log)}.feedback svg.bar rect{fill:var(--feedback)}
.failed svg.bar rect{fill:var(--failed)}
.attrs{padding:.4rem 1rem .8rem 2.2rem}
.attrs dl{display:grid;grid-template-columns:minmax(12rem,max-content) 1fr;gap:.15rem 1rem;margin:0}
.attrs dt{color:var(--muted);font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.attrs dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;white-space:pre-wrap;word-break:break-word}
.attrs details.long summary{display:inline;color:var(--accent);cursor:pointer;padding:0}
.attrs h3{font-size:12.5px;margin:.7rem 0 .3rem}
.attrs pre{margin:0;padding:.5rem .7rem;background:#f3f5f9;border-radius:4px;white-space:pre-wrap;word-break:break-word;max-height:24rem;overflow:auto}
${Array.from({ length: INDENT_LEVELS + 1 }, (_, d) => `.d${d}{padding-left:${(d * 1.1).toFixed(1)}rem}`).join('')}
table.versions td,table.versions th{text-align:right}
table.versions td:first-child,table.versions th:first-child{text-align:left}
.sign-in{max-width:24rem;margin:5rem auto}
.sign-in h1{margin-bottom:.4rem}
.sign-in form{display:flex;flex-direction:column;gap:.7rem;margin-top:1rem}
.sign-in input{width:100%}
.sign-in .error{color:var(--failed)}
`;

/** Indentation stops at this depth (deeper rows line up under it). */
export const MAX_INDENT = INDENT_LEVELS;
