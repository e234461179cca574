import Foundation

extension RecorderWriter {
    /// Seals a report of each session the log has just marked crashed, into the outbox, when
    /// the configuration has a key (``RecorderConfiguration/reports``). On the writer thread:
    /// actions dispatched meanwhile wait in the buffer, as during any commit. A failure (a
    /// full disk) is reported to `onFailure`; the session stays marked in the log, and
    /// `rewind report create` can still seal it by hand.
    func sealCrashReports() {
        let crashed = log.takeCrashedSessions()
        guard !crashed.isEmpty, let options = configuration.reports else { return }
        guard let reader = log.reportReader, let outbox = options.outbox ?? log.reportOutbox else {
            report(RecorderFailure(
                error: .failed(path: log.path, reason: "\(crashed.count) crashed session(s) not reported: this log has no outbox beside it; set reports.outbox"),
                unrecorded: []
            ))
            return
        }
        for id in crashed {
            do {
                let session = try reader.session(id)
                let reason = ReportReason(kind: .crash, name: session.ending?.crash?.signalName)
                try outbox.makeFolder()
                let sealed = try reader.sealReport(
                    session: id, reason: reason, options: options, temporaryFile: outbox.temporaryFile(), now: configuration.clock()
                )
                try outbox.add(sealed, now: configuration.clock())
            } catch {
                report(RecorderFailure(error: error, unrecorded: []))
            }
        }
    }
}
