// The inspector page's style (see page-html.ts): one column on a narrow window, the calls
// beside the rest from 900 px on; long values wrap rather than widen the page.
export const INSPECTOR_CSS = `:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --panel: #ffffff; --text: #1c2128; --muted: #57606a; --line: #d0d7de;
  --accent: #0a58ca; --ok: #116329; --warn: #7d4e00; --bad: #a40e26; --fault: #6f42c1;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --panel: #161b22; --text: #e6edf3; --muted: #9da7b3; --line: #30363d;
    --accent: #79b8ff; --ok: #56d364; --warn: #e3b341; --bad: #ff7b72; --fault: #d2a8ff; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.25rem 0 0.75rem; padding: 0.5rem;
  background: var(--bg); border: 1px solid var(--line); border-radius: 4px; max-height: 24rem; overflow: auto; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; padding: 0.5rem; background: var(--panel); }
.skip:focus { left: 0.5rem; z-index: 1; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1.5rem; padding: 0.75rem 1rem;
  background: var(--panel); border-bottom: 1px solid var(--line); }
.title { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0 1rem; }
h1 { font-size: 1.25rem; margin: 0; }
h2 { font-size: 1.1rem; margin: 0 0 0.5rem; }
h3 { font-size: 1rem; margin: 0.75rem 0 0.25rem; }
.live { margin: 0; color: var(--muted); }
.live.on::before { content: "● "; color: var(--ok); }
.counts { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0; }
.counts div { display: flex; gap: 0.3rem; }
.counts dt { color: var(--muted); }
.counts dd { margin: 0; font-weight: 600; }
.reset { margin-left: auto; }
.reset[open] { padding: 0.5rem; border: 1px solid var(--line); border-radius: 4px; max-width: 22rem; }
main { display: grid; gap: 1rem; padding: 1rem; grid-template-columns: minmax(0, 1fr);
  grid-template-areas: "faults" "calls" "incidents" "deliveries"; }
@media (min-width: 900px) {
  main { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr);
    grid-template-areas: "calls faults" "calls incidents" "calls deliveries";
    grid-template-rows: auto auto 1fr; align-items: start; }
}
#faults { grid-area: faults; } #calls { grid-area: calls; } #incidents { grid-area: incidents; } #deliveries { grid-area: deliveries; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem 1rem; min-width: 0; }
.hint { color: var(--muted); margin: 0 0 0.5rem; }
.fault-form { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: end; }
.fault-form .field { display: flex; flex-direction: column; gap: 0.15rem; font-size: 0.9rem; max-width: 100%; min-width: 0; }
.fault-form .field.wide { flex: 1 1 100%; }
.fault-form select { width: 100%; }
.params { display: contents; border: 0; padding: 0; margin: 0; }
.params[hidden] { display: none; }
input, select, button { font: inherit; color: inherit; background: var(--panel); border: 1px solid var(--line);
  border-radius: 4px; padding: 0.3rem 0.5rem; max-width: 100%; }
input[type="number"] { width: 8rem; }
button { cursor: pointer; background: var(--accent); color: #fff; border-color: var(--accent); }
@media (prefers-color-scheme: dark) { button { color: #0d1117; } }
button.quiet { background: transparent; color: var(--accent); }
.message { min-height: 1.45em; margin: 0.5rem 0 0; }
.message.error { color: var(--bad); }
.fault-list { padding-left: 1.25rem; margin: 0 0 0.5rem; }
.items { list-style: none; padding: 0; margin: 0; }
.items > li { border-top: 1px solid var(--line); }
.items > li:first-child { border-top: 0; }
summary { cursor: pointer; padding: 0.35rem 0.25rem; display: flex; flex-wrap: wrap; gap: 0.25rem 0.75rem; align-items: baseline; }
summary::marker, summary::-webkit-details-marker { color: var(--muted); }
.detail { padding: 0 0.25rem 0.5rem 1.25rem; }
.detail dl { display: grid; grid-template-columns: minmax(6rem, max-content) minmax(0, 1fr); gap: 0.1rem 0.75rem; margin: 0.25rem 0 0.75rem; }
.detail dt { color: var(--muted); overflow-wrap: anywhere; }
.detail dd { margin: 0; overflow-wrap: anywhere; }
.time, .ms { color: var(--muted); font-variant-numeric: tabular-nums; }
.method { font-weight: 600; }
.route { overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 0 0.4rem; border-radius: 999px; border: 1px solid currentColor; font-size: 0.85rem; font-weight: 600; }
.s2 { color: var(--ok); } .s4 { color: var(--warn); } .s5, .s0 { color: var(--bad); }
.fault { color: var(--fault); }
.empty { color: var(--muted); padding: 0.35rem 0.25rem; }
`;
