// The app's stylesheet, compiled into the executable. Colours meet WCAG AA contrast on white.
import { LEGEND } from "../../../witness/index.ts";

export const APP_CSS = String.raw`
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
a{color:#0b57d0}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,[tabindex]:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:8px}.skip:focus{left:8px;z-index:10}
header nav{display:flex;gap:16px;align-items:center;padding:10px 20px;background:#1f2937;color:#fff;flex-wrap:wrap}
header nav a{color:#fff;text-decoration:none;padding:4px 6px;border-radius:4px}header nav a[aria-current=page]{background:#374151;text-decoration:underline}
header .brand{font-weight:700;margin-right:8px}header .who{margin-left:auto;color:#e5e7eb;font-size:13px}
header button{background:#374151;color:#fff;border:1px solid #6b7280}
main{padding:16px 20px;max-width:1400px;margin:0 auto}
h1{font-size:24px;margin:8px 0 16px}h2{font-size:18px;margin:0 0 10px}h3{font-size:15px;margin:14px 0 6px}.flame figcaption h3{display:inline}
.card{background:#fff;border:1px solid #d1d5db;border-radius:6px;padding:14px 16px;margin:0 0 16px}
.narrow{max-width:380px;margin:40px auto}
.stack{display:flex;flex-direction:column;gap:6px}.stack button{margin-top:10px}
.row{display:flex;gap:12px;align-items:flex-end;flex-wrap:wrap}.row label{display:block;font-size:13px;margin-bottom:2px}
.inline{display:inline}
input,select{font:inherit;padding:5px 8px;border:1px solid #6b7280;border-radius:4px;background:#fff;color:#1b1b1b}
button{font:inherit;padding:5px 12px;border:1px solid #1f2937;border-radius:4px;background:#1f2937;color:#fff;cursor:pointer}
button:hover{background:#374151}
table{border-collapse:collapse;width:100%;background:#fff;font-size:14px}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #e5e7eb;vertical-align:top}
th{background:#f3f4f6}
.muted{color:#555}.mono,code{font-family:ui-monospace,Menlo,monospace;font-size:13px}
.tag{display:inline-block;font-size:11px;padding:0 5px;border-radius:3px;background:#e5e7eb;color:#1f2937}
.state{display:inline-block;padding:1px 7px;border-radius:10px;font-size:13px;background:#e5e7eb;color:#1f2937}
.s-queued,.s-running{background:#fef3c7;color:#78350f}.s-pushed{background:#dcfce7;color:#14532d}.s-failed{background:#fee2e2;color:#7f1d1d}.s-nothing_to_push{background:#e0e7ff;color:#312e81}.s-connected{background:#dcfce7;color:#14532d}.s-offline{background:#fee2e2;color:#7f1d1d}
.flash{padding:8px 12px;border-radius:4px}.flash.ok{background:#dcfce7;color:#14532d}.flash.error{background:#fee2e2;color:#7f1d1d}
.secret{border-color:#b45309;background:#fffbeb}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0 0 16px}.meta dt{color:#555}.meta dd{margin:0}
.instr{font-weight:700;font-size:16px}.instr.full{color:#14532d}.instr.partial{color:#7f1d1d}
.missing li{margin:4px 0}.fix{color:#1f2937;font-style:italic}
.verdict{display:inline-block;padding:2px 10px;border-radius:4px;font-weight:700}.v-changed{background:#fee2e2;color:#7f1d1d}.v-changed.d-up{background:#ffe4cc;color:#7c2d12}.v-changed.d-down{background:#dbeafe;color:#1e3a8a}.v-changed.d-mixed{background:#ede9fe;color:#3b0764}.v-unchanged{background:#dcfce7;color:#14532d}.v-insufficient,.v-none{background:#fef3c7;color:#78350f}
.absent li{color:#7f1d1d}
.legend .sw{display:inline-block;width:14px;height:12px;vertical-align:middle;margin-left:8px}${LEGEND.map(([key, colour]) => `.sw.${key}{background:${colour}}`).join("")}.sw.gone,.fr.gone{background:repeating-linear-gradient(135deg,#fff 0 4px,#9ca3af 4px 6px)}
.flame{margin:12px 0 20px;position:relative}.flame figcaption{margin-bottom:6px}
.flame-tools{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin-bottom:6px}.flame-tools label{font-size:13px}
.flame-graph{position:relative;width:100%;overflow:hidden;border:1px solid #e5e7eb;background:#fff}
.fr{position:absolute;height:17px;line-height:17px;font-size:11px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;border-right:1px solid #fff;padding-left:2px;cursor:pointer;color:#111}
.fr:hover,.fr:focus{outline:2px solid #111;z-index:2}.fr.match{outline:2px solid #b45309;font-weight:700}.fr.dim{opacity:.35}
.flame-tip{position:absolute;z-index:5;background:#111827;color:#fff;padding:6px 8px;border-radius:4px;font-size:12px;pointer-events:none;max-width:520px;white-space:pre-line}
.changes td.fn{font-family:ui-monospace,Menlo,monospace;font-size:12px;white-space:nowrap}
tr.flag-up td{background:#fff4eb}tr.flag-down td{background:#eff6ff}
.chg{display:inline-block;padding:0 6px;border-radius:3px;font-weight:700;white-space:nowrap}.chg.up{background:#ffe4cc;color:#7c2d12}.chg.down{background:#dbeafe;color:#1e3a8a}.chg.insufficient{background:#fef3c7;color:#78350f}.chg.unchanged{background:#dcfce7;color:#14532d}
.changes td.words{min-width:260px;font-size:13px}.explain{margin:6px 0}.powers{margin:4px 0 8px;font-size:14px}
.scroll{overflow-x:auto;max-width:100%}
.flame-panes.split{display:grid;grid-template-columns:1fr 1fr;gap:8px}
button.link{background:none;border:0;color:#0b57d0;padding:0;text-decoration:underline;font:inherit;text-align:left;cursor:pointer;word-break:break-all}button.link:hover{background:none}
.top-table{font-size:13px}.top-table th button.sort{background:none;border:0;color:#1b1b1b;padding:0;font-weight:700}
.sandwich{border-top:1px solid #d1d5db;margin-top:8px;padding-top:8px}.sandwich h4{margin:4px 0}
fieldset{min-width:0;border:1px solid #d1d5db;border-radius:4px;margin:0 0 8px;padding:6px 10px}legend{font-weight:700;font-size:14px}
.pick summary,.top-details summary{cursor:pointer;margin:6px 0}
.vchg{white-space:nowrap;font-weight:700}.vchg.up{color:#7c2d12}.vchg.down{color:#1e3a8a}.vchg.insufficient{color:#78350f}.vchg.unchanged{color:#14532d}
.summary-table{margin-bottom:12px}
@media (max-width:640px){main{padding:10px;overflow-wrap:anywhere}.flame-tip{max-width:90vw}.meta{grid-template-columns:1fr}header nav{padding:8px 10px;gap:8px}header .who{margin-left:0;width:100%}h1{font-size:20px}.card{padding:10px}
table.records,table.records tbody,table.records tr,table.records td{display:block}table.records thead{display:none}table.records tr{border-bottom:1px solid #d1d5db;padding:6px 0}table.records td{border:0;padding:2px 4px}
.flame-panes.split{grid-template-columns:1fr}.scroll>table{overflow-wrap:normal;min-width:640px}.scroll>table.top-table{min-width:360px}.fr{height:23px;line-height:23px;font-size:12px}.row>div{flex:1 1 100%}input,select{max-width:100%}}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;
