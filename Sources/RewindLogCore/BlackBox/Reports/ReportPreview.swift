public import Foundation

/// Exactly what a report would reveal, before it is sealed: for a consent screen, or for a
/// developer checking what leaves the device (`recorder.previewReport()`, `rewind report
/// preview`).
public struct ReportPreview: Sendable {
    /// The clear header.
    public var header: ReportHeader
    /// The sealed details, with what the secret scan found.
    public var details: ReportDetails
    /// The content exactly as it would be sealed: the `report` line, then the window's
    /// portable export (JSON Lines).
    public var content: Data
    /// The sealed report, as ``LogReader/sealReport(session:trigger:through:reason:note:options:temporaryFile:now:)``
    /// would return it.
    public var sealed: Data

    /// The secret-looking strings in the content (``SecretScan``).
    public var secrets: [SecretFinding] { details.secrets }
}
