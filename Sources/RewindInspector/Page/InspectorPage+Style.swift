extension InspectorPage {
    static let styleSource = #"""
        :root { --bg: #fbfbfa; --panel: #fff; --line: #e3e2de; --text: #1d1d1f; --dim: #6e6e73; --accent: #3a5bd9;
                --sel: #e6ecff; --bad: #c62828; --good: #2e7d32; --minus: #fdecea; --plus: #e8f5e9; --mark: #ffb300;
                font: 13px/1.45 -apple-system, "Segoe UI", system-ui, sans-serif; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #161618; --panel: #1e1e21; --line: #333338; --text: #e8e8ea; --dim: #98989f; --accent: #7d97ff;
                  --sel: #2a3358; --minus: #4a2326; --plus: #1f3b24; }
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--text); height: 100vh; display: flex; flex-direction: column; }
        header { display: flex; align-items: center; gap: 16px; padding: 8px 14px; border-bottom: 1px solid var(--line); background: var(--panel); }
        h1 { font-size: 15px; margin: 0; font-weight: 600; }
        .brand { color: var(--accent); }
        #summary, #status { color: var(--dim); }
        #status { margin-left: auto; }
        .live { white-space: nowrap; }
        .error { background: var(--minus); color: var(--bad); padding: 8px 14px; white-space: pre-wrap; }
        .warning { background: color-mix(in srgb, var(--mark) 14%, var(--panel)); border-bottom: 1px solid var(--line); padding: 6px 14px; }
        .warning ul { margin: 2px 0; padding-left: 20px; }
        .warning .advice { color: var(--dim); }
        main { flex: 1; display: grid; grid-template-columns: minmax(420px, 46%) 1fr; min-height: 0; }
        section { min-height: 0; display: flex; flex-direction: column; }
        #timeline { border-right: 1px solid var(--line); }
        form, .tools { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
        #filters { padding: 8px; border-bottom: 1px solid var(--line); }
        #filters input { width: 96px; }
        #filters select { max-width: 130px; }
        input, select, button { font: inherit; color: inherit; background: var(--panel); border: 1px solid var(--line); border-radius: 5px; padding: 3px 7px; }
        button { cursor: pointer; }
        button:hover { border-color: var(--accent); }
        button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
        .scrub { display: flex; gap: 8px; padding: 6px 8px; align-items: center; }
        #scrubber { flex: 1; }
        #jump-seq, #whatif-through, #diff-from, #diff-to { width: 90px; }
        #marks { position: relative; height: 6px; margin: 0 110px 4px 14px; }
        #marks i { position: absolute; top: 0; width: 3px; height: 6px; background: var(--mark); }
        #marks i.bad { background: var(--bad); z-index: 1; }
        #marks i.reproduced { background: var(--good); width: 2px; }
        #marks i.unchecked { background: var(--dim); width: 2px; }
        .row .tag.reproduced { background: var(--plus); color: var(--good); }
        .row .tag.diverging { background: var(--minus); color: var(--bad); }
        #rows { flex: 1; overflow: hidden; position: relative; outline: none; font-family: ui-monospace, "SF Mono", Menlo, monospace; font-size: 12px; }
        #rows:focus-visible { box-shadow: inset 0 0 0 2px var(--accent); }
        .row { position: absolute; left: 0; right: 0; height: 24px; display: grid; align-items: center;
               grid-template-columns: 20px 70px 96px minmax(120px, 1fr) minmax(100px, 1fr) 64px; gap: 8px; padding: 0 8px; cursor: default; white-space: nowrap; }
        .row > span { overflow: hidden; text-overflow: ellipsis; }
        .row:hover { background: color-mix(in srgb, var(--sel) 50%, transparent); }
        .row.selected { background: var(--sel); }
        .row.skipped .case { text-decoration: line-through; color: var(--dim); }
        .row.hit { box-shadow: inset 3px 0 0 var(--bad); }
        .row .seq { color: var(--dim); text-align: right; }
        .row .time, .row .origin, .row .src { color: var(--dim); }
        .row .tag.bad { background: var(--minus); color: var(--bad); }
        .row .tag { font-size: 10px; padding: 0 4px; border-radius: 3px; background: var(--line); color: var(--dim); margin-left: 6px; }
        #rows-footer { padding: 4px 8px; color: var(--dim); border-top: 1px solid var(--line); }
        #tabs { display: flex; gap: 2px; padding: 6px 8px 0; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
        #tabs button { border: none; border-bottom: 2px solid transparent; border-radius: 0; background: none; padding: 6px 10px; }
        #tabs button.active { border-bottom-color: var(--accent); color: var(--accent); }
        .panel { flex: 1; overflow: auto; padding: 12px 14px; }
        .panel > * + * { margin-top: 10px; }
        .hint, .info { color: var(--dim); }
        dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
        dl.fields dt { color: var(--dim); }
        dl.fields dd { margin: 0; font-family: ui-monospace, Menlo, monospace; word-break: break-all; }
        .tree { font-family: ui-monospace, Menlo, monospace; font-size: 12px; }
        .tree details { margin-left: 14px; }
        .tree summary { cursor: pointer; margin-left: -14px; }
        .tree .leaf { margin-left: 0; }
        .tree .key { color: var(--accent); }
        .tree .str { color: #b35900; } .tree .num { color: #2962ff; } .tree .lit { color: #8e24aa; }
        @media (prefers-color-scheme: dark) { .tree .str { color: #ffb26b; } .tree .num { color: #82a7ff; } .tree .lit { color: #d18bff; } }
        .tree .match > .key, .tree .match > summary > .key, .tree mark { background: var(--mark); color: #000; }
        pre.diff { margin: 0; font-size: 12px; white-space: pre-wrap; }
        pre.diff .minus { background: var(--minus); display: block; }
        pre.diff .plus { background: var(--plus); display: block; }
        table { border-collapse: collapse; }
        td, th { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid var(--line); }
        .bar { height: 10px; background: var(--accent); border-radius: 2px; display: inline-block; vertical-align: middle; }
        .activity + .activity { margin-top: 12px; }
        .spark-row { display: grid; grid-template-columns: 260px 1fr; align-items: end; gap: 10px; height: 26px; }
        .spark-row .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; align-self: center; }
        .spark { display: flex; align-items: flex-end; gap: 1px; height: 24px; border-bottom: 1px solid var(--line); }
        .spark i { flex: 1; background: var(--accent); min-width: 2px; max-width: 8px; }
        .invariant { display: flex; gap: 10px; align-items: center; padding: 4px 0; }
        .invariant .name { font-weight: 600; }
        .ok { color: var(--good); } .bad { color: var(--bad); }
        a.seq-link { color: var(--accent); cursor: pointer; text-decoration: underline; }
        .card { border: 1px solid var(--line); border-radius: 6px; padding: 10px; background: var(--panel); }
        """#
}
