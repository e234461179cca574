import Foundation

/// The inspector's page: one HTML document (`inspector.html`), its style sheet (`inspector.css`)
/// and its script (`inspector.js`), written for this project, kept beside this file as the
/// files a web developer edits, and compiled into the binary by SwiftPM (`embedInCode`), so a
/// copied `rewind` serves them with no resource bundle, no CDN and no build step, and the page
/// works offline.
///
/// The script is plain JavaScript, no framework: it builds every element with `textContent` (a
/// log's payloads and names are never parsed as HTML), keeps only the rows on screen in the DOM
/// (a 10,000,000-event log scrolls through pages the API reads on demand), and asks the API for
/// everything else.
enum InspectorPage {
    /// The document, with `title` (escaped) as its title; `view` (`log` or `reports`) is what
    /// the script opens on.
    static func html(title: String, view: String) -> InspectorResponse {
        let escaped = title
            .replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        return InspectorResponse(
            status: 200,
            headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"],
            body: Data(document.replacingOccurrences(of: "{{title}}", with: escaped).replacingOccurrences(of: "{{view}}", with: view).utf8)
        )
    }

    static let script = InspectorResponse(status: 200, headers: ["Content-Type": "text/javascript; charset=utf-8"], body: Data(PackageResources.inspector_js))
    static let style = InspectorResponse(status: 200, headers: ["Content-Type": "text/css; charset=utf-8"], body: Data(PackageResources.inspector_css))

    private static let document = String(decoding: PackageResources.inspector_html, as: UTF8.self)
}
