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

    /// Notes the first error action among the events just written (`items`, whose first event
    /// got seq `first`), when the app marks some and reports are on. A pass over the batch only
    /// then: this code runs unspecialised for the app's types.
    func noteErrorAction(
        in items: ArraySlice<RecordingBuffer<State, Action>.Item>, from first: Int64, session: Int64, progress: inout Progress
    ) {
        guard let isError = configuration.errorActions, configuration.reports != nil,
              progress.errorTrigger == nil, progress.errorReported != session else { return }
        var seq = first
        for item in items {
            guard case let .event(dispatched, _) = item else { continue }
            if isError(dispatched.action) {
                progress.errorTrigger = (session, seq)
                return
            }
            seq += 1
        }
    }

    /// Seals the report of the error action noted, once the actions after it are written — or
    /// now, with those there are, when its session is ending.
    func sealErrorReport(progress: inout Progress, sessionEnding: Bool) {
        guard let trigger = progress.errorTrigger, let options = configuration.reports else { return }
        let through = trigger.seq + Int64(max(options.eventsAfterTrigger, 0))
        guard sessionEnding || (progress.lastSeq ?? 0) >= through || session?.id != trigger.session else { return }
        progress.errorTrigger = nil
        progress.errorReported = trigger.session
        guard let reader = log.reportReader, let outbox = options.outbox ?? log.reportOutbox else {
            report(RecorderFailure(
                error: .failed(path: log.path, reason: "an error action was not reported: this log has no outbox beside it; set reports.outbox"),
                unrecorded: []
            ))
            return
        }
        do {
            let name = try reader.event(at: trigger.seq).actionCase
            try outbox.makeFolder()
            let sealed = try reader.sealReport(
                session: trigger.session, trigger: trigger.seq, through: through, reason: ReportReason(kind: .errorAction, name: name),
                options: options, temporaryFile: outbox.temporaryFile(), now: configuration.clock()
            )
            try outbox.add(sealed, now: configuration.clock())
        } catch {
            report(RecorderFailure(error: error, unrecorded: []))
        }
    }
}
