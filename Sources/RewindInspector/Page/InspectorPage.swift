import Foundation

/// The inspector's page: one HTML document, its style sheet and its script, written for this
/// project and compiled into the binary as strings, so a copied `rewind` serves them with no
/// resource bundle, no CDN and no build step, and the page works offline.
enum InspectorPage {
    /// The document, with `title` (escaped) as its title.
    static func html(title: String) -> InspectorResponse {
        let escaped = title
            .replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        return InspectorResponse(
            status: 200,
            headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"],
            body: Data(document.replacingOccurrences(of: "{{title}}", with: escaped).utf8)
        )
    }

    static let script = InspectorResponse(status: 200, headers: ["Content-Type": "text/javascript; charset=utf-8"], body: Data(scriptSource.utf8))
    static let style = InspectorResponse(status: 200, headers: ["Content-Type": "text/css; charset=utf-8"], body: Data(styleSource.utf8))

    private static let document = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} — Rewind</title>
        <link rel="stylesheet" href="/inspector.css">
        <script src="/inspector.js" defer></script>
        </head>
        <body>
        <header>
          <h1><span class="brand">Rewind</span> <span id="title">{{title}}</span></h1>
          <span id="summary"></span>
          <label class="live"><input type="checkbox" id="follow"> Follow the tail</label>
          <span id="status" role="status"></span>
        </header>
        <div id="banner" class="error" hidden></div>
        <div id="drift" class="warning" role="note" hidden></div>
        <main>
          <section id="timeline" aria-label="Timeline">
            <form id="filters">
              <select id="f-session" aria-label="Session"><option value="">All sessions</option></select>
              <input id="f-case" placeholder="case (cart.*)" aria-label="Action case pattern">
              <input id="f-file" placeholder="source file" aria-label="Source file">
              <input id="f-since" placeholder="since (10m, ISO)" aria-label="Since">
              <input id="f-until" placeholder="until" aria-label="Until">
              <button type="submit">Filter</button>
            </form>
            <div class="scrub">
              <input type="range" id="scrubber" min="1" max="1" value="1" aria-label="Position in the log">
              <form id="jump"><input id="jump-seq" placeholder="seq" aria-label="Jump to seq" inputmode="numeric"><button type="submit">Go</button></form>
            </div>
            <div id="marks" aria-hidden="true"></div>
            <div id="rows" tabindex="0" aria-label="Events: ←/→ or j/k to step"></div>
            <div id="rows-footer"></div>
          </section>
          <section id="detail" aria-label="Detail">
            <nav id="tabs">
              <button data-tab="event" class="active">Event</button>
              <button data-tab="state">State</button>
              <button data-tab="diff">Diff</button>
              <button data-tab="bisect">Invariants</button>
              <button data-tab="whatif">What-if</button>
              <button data-tab="verify">Verify</button>
              <button data-tab="sessions">Sessions &amp; stats</button>
            </nav>
            <div class="panel" id="panel-event"><p class="hint">Select an event on the timeline.</p></div>
            <div class="panel" id="panel-state" hidden>
              <div class="tools"><input id="state-search" placeholder="search keys and values" aria-label="Search the state"></div>
              <div id="state-info" class="info"></div>
              <div id="state-tree" class="tree"></div>
            </div>
            <div class="panel" id="panel-diff" hidden>
              <div id="diff-info" class="info"></div>
              <pre id="diff-text" class="diff"></pre>
              <form id="diff-between" class="tools">
                Compare the state after <input id="diff-from" placeholder="seq" inputmode="numeric" aria-label="From seq">
                with after <input id="diff-to" placeholder="seq" inputmode="numeric" aria-label="To seq"> <button type="submit">Diff</button>
              </form>
            </div>
            <div class="panel" id="panel-bisect" hidden>
              <div id="invariants"></div>
              <form id="where-form" class="tools">
                <input id="where" placeholder="a condition on the state: cart.total &lt; 0" aria-label="Condition">
                <button type="submit">Find when it first holds</button>
              </form>
              <div id="bisect-result"></div>
            </div>
            <div class="panel" id="panel-whatif" hidden>
              <p class="hint">Tick events on the timeline to leave them out, then replay.</p>
              <div id="whatif-skipped"></div>
              <div class="tools">Compare the states after seq <input id="whatif-through" placeholder="the last" inputmode="numeric" aria-label="Compare after seq">
                <button id="whatif-run">Replay without them</button> <button id="whatif-clear">Clear</button></div>
              <div id="whatif-result"></div>
            </div>
            <div class="panel" id="panel-verify" hidden>
              <div class="tools"><button id="verify-run">Verify against the recorded snapshots</button></div>
              <div id="verify-result"></div>
            </div>
            <div class="panel" id="panel-sessions" hidden>
              <div id="sessions"></div>
              <div id="stats"></div>
            </div>
          </section>
        </main>
        </body>
        </html>
        """#
}
