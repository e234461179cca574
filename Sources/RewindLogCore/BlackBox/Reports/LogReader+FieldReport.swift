public import Foundation

extension LogReader {
    /// Seals a report of one session: the events of ``ReportOptions/window`` up to `trigger`,
    /// from the nearest snapshot at or before the first of them, with the session's gaps and
    /// shapes, bounded by ``ReportOptions/sizeLimit``.
    ///
    /// - Parameters:
    ///   - id: The session's id.
    ///   - trigger: The seq the report is about; the session's last event when `nil`.
    ///   - through: Where the window ends, at or after `trigger` (the actions after an error
    ///     action, say); at the trigger when `nil`.
    ///   - reason: Why it is made.
    ///   - note: What the user or developer wrote.
    ///   - options: The key, window, bound and device details.
    ///   - temporaryFile: Where its temporary export is written (and removed): a new file in
    ///     the system's temporary folder by default.
    ///   - now: When it is sealed (its header's time).
    /// - Returns: The report file's bytes.
    /// - Throws: `EventLogError` when the session or the seq is not in the log, or the log
    ///   cannot be read.
    public func sealReport(
        session id: Int64, trigger: Int64? = nil, through: Int64? = nil, reason: ReportReason, note: String? = nil, options: ReportOptions,
        temporaryFile: URL? = nil, now: Date = Date()
    ) throws(EventLogError) -> Data {
        try previewReport(
            session: id, trigger: trigger, through: through, reason: reason, note: note, options: options, temporaryFile: temporaryFile, now: now
        ).sealed
    }

    /// The report ``sealReport(session:trigger:through:reason:note:options:temporaryFile:now:)`` makes,
    /// with exactly what it reveals: its header, its details (the secret scan's findings among
    /// them) and the content it seals.
    public func previewReport(
        session id: Int64, trigger: Int64? = nil, through: Int64? = nil, reason: ReportReason, note: String? = nil, options: ReportOptions,
        temporaryFile: URL? = nil, now: Date = Date()
    ) throws(EventLogError) -> ReportPreview {
        try readingConsistently { log throws(EventLogError) in
            let file = temporaryFile ?? FileManager.default.temporaryDirectory.appendingPathComponent("rewind-report-\(UUID().uuidString).jsonl")
            return try log.sealReportNow(
                session: id, trigger: trigger, through: through, reason: reason, note: note, options: options, temporaryFile: file, now: now
            )
        }
    }

    private func sealReportNow(
        session id: Int64, trigger: Int64?, through: Int64?, reason: ReportReason, note: String?, options: ReportOptions, temporaryFile: URL, now: Date
    ) throws(EventLogError) -> ReportPreview {
        let session = try self.session(id)
        let triggerSeq = trigger ?? session.seqRange?.upperBound
        var triggerEvent: LoggedEvent?
        if let triggerSeq {
            guard let range = session.seqRange, range.contains(triggerSeq) else {
                throw .seqOutsideSession(path: path, seq: triggerSeq, session: id, sessionSeqs: session.seqRange)
            }
            triggerEvent = try event(at: triggerSeq)
        }
        // The window's last event: the trigger, or up to `through` after it, within the session.
        let end = max(min(through ?? triggerSeq ?? 0, session.seqRange?.upperBound ?? 0), triggerSeq ?? 0)
        var header = ReportHeader(keyID: options.key.id, app: session.app, reason: reason, createdAt: now.timeIntervalSince1970)
        if !options.sealsTrigger {
            header.triggerAction = triggerEvent?.actionCase
            header.triggerSource = triggerEvent?.source
        }
        var details = ReportDetails(
            reason: reason, note: note, session: id, triggerSeq: triggerSeq, ending: session.ending, device: options.device
        )
        if case let .events(count) = options.window { details.requestedEvents = max(count, 1) }

        var filter = EventFilter()
        filter.session = id
        guard let triggerEvent else {
            // A session with no events: its snapshot alone.
            let export = try exportBytes(filter, through: temporaryFile)
            details.keptEvents = export.count
            return try sealBounded(header: header, details: &details, export: export.bytes, options: options)
        }
        // The window's first event, as the options ask.
        var first: Int64
        switch options.window {
        case let .events(count):
            first = try events(filter, before: triggerEvent.seq + 1, count: max(count, 1)).first?.seq ?? triggerEvent.seq
        case let .seconds(seconds):
            var recent = filter
            recent.times = (triggerEvent.time - max(seconds, 0))...triggerEvent.time
            var cursor = events(recent, pageSize: 1)
            first = try cursor.next()?.seq ?? triggerEvent.seq
        case .session:
            first = session.seqRange?.lowerBound ?? triggerEvent.seq
        }
        // Windows begin just after a snapshot (a fold from an earlier snapshot over only some of
        // the events between would be another state): the one at or before the first asked for,
        // then, to fit the bound, later ones — about half the events each time, at least one
        // snapshot later — until the one before the trigger.
        let starts = try snapshotIndex(session: id).map(\.seq).filter { $0 < triggerEvent.seq }
        var base = starts.last { $0 < first } ?? (first - 1)
        details.lastSeq = end
        while true {
            var window = filter
            window.seqs = (base + 1)...end
            details.firstSeq = base + 1
            let export = try exportBytes(window, through: temporaryFile)
            details.keptEvents = export.count
            let halfway = base + (end - base) / 2
            let later = starts.last { $0 <= halfway && $0 > base } ?? starts.first { $0 > base }
            guard let later else {
                return try sealBounded(header: header, details: &details, export: export.bytes, options: options)
            }
            let sealed = try FieldReport.seal(header: header, details: details, export: export.bytes, to: options.key)
            if sealed.count <= options.sizeLimit {
                return try sealBounded(header: header, details: &details, export: export.bytes, options: options)
            }
            base = later
        }
    }

    /// The report sealed, with what the scan found in `export`, and flagged when it is larger
    /// than its bound: as small as it gets.
    private func sealBounded(header: ReportHeader, details: inout ReportDetails, export: Data, options: ReportOptions) throws(EventLogError) -> ReportPreview {
        details.secrets = Array(SecretScan.findings(in: export).prefix(SecretScan.largestReported))
        var sealed = try FieldReport.seal(header: header, details: details, export: export, to: options.key)
        if sealed.count > options.sizeLimit {
            details.exceedsBound = true
            sealed = try FieldReport.seal(header: header, details: details, export: export, to: options.key)
        }
        return ReportPreview(header: header, details: details, content: try FieldReport.content(details: details, export: export), sealed: sealed)
    }

    /// The portable export of `filter`'s events, through the temporary file `url`.
    private func exportBytes(_ filter: EventFilter, through url: URL) throws(EventLogError) -> (bytes: Data, count: Int) {
        defer { try? FileManager.default.removeItem(at: url) }
        let count = try export(to: url, filter: filter)
        do {
            return (try Data(contentsOf: url), count)
        } catch {
            throw .readOnly(path: url.path, detail: "the report's export cannot be read back")
        }
    }
}
