public import Foundation

extension Recorder {
    /// Seals a report of the session being recorded — everything dispatched before the call,
    /// up to its last action — into the outbox: for a "report a problem" button. Waits for the
    /// writer to commit what is buffered, then seals on a Dispatch thread: the calling actor
    /// (the main actor) is free meanwhile.
    ///
    /// - Parameter note: What the user wrote, sealed with it.
    /// - Returns: The report's file in the outbox.
    /// - Throws: `EventLogError` when reports are off (no key in
    ///   ``RecorderConfiguration/reports``), nothing was recorded yet, or the outbox cannot be
    ///   written (a full disk: the reports already there are untouched).
    @discardableResult
    public func report(note: String? = nil) async throws(EventLogError) -> URL {
        try await Self.offCaller { [self] () throws(EventLogError) -> URL in
            let (preview, outbox) = try requestedReport(note: note)
            return try outbox.add(preview.sealed, now: configuration.clock())
        }
    }

    /// Exactly what ``report(note:)`` would send, without sealing it into the outbox: its
    /// header, its details with what the secret scan found, and its content — for a consent
    /// screen that shows the user what leaves the device.
    public func previewReport(note: String? = nil) async throws(EventLogError) -> ReportPreview {
        try await Self.offCaller { [self] () throws(EventLogError) -> ReportPreview in try requestedReport(note: note).preview }
    }

    /// The requested report of the current session (or, between a suspension and the next
    /// action, the app's latest), after a flush.
    private func requestedReport(note: String?) throws(EventLogError) -> (preview: ReportPreview, outbox: ReportOutbox) {
        let log = writer.log
        guard let options = configuration.reports else {
            throw .failed(path: log.path, reason: "reports are off: set RecorderConfiguration.reports with the team's public key")
        }
        try flush()
        guard let reader = log.reportReader, let outbox else {
            throw .failed(path: log.path, reason: "this log has no outbox beside it: set reports.outbox")
        }
        var latest = writer.session
        if latest == nil { latest = try reader.sessions().last { $0.app.id == app.id } }
        guard let session = latest else { throw .failed(path: log.path, reason: "nothing has been recorded yet to report") }
        try outbox.makeFolder()
        let preview = try reader.previewReport(
            session: session.id, reason: ReportReason(kind: .requested), note: note, options: options,
            temporaryFile: outbox.temporaryFile(), now: configuration.clock()
        )
        return (preview, outbox)
    }
}
