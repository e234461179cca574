import Foundation

extension RecorderWriter {
    /// Seals a report of each session the log has just marked crashed or hung, into the outbox, when
    /// the configuration has a key (``RecorderConfiguration/reports``). On the writer thread:
    /// actions dispatched meanwhile wait in the buffer, as during any commit. A failure (a
    /// full disk) is reported to `onFailure`; the session stays marked in the log, and
    /// `rewind report create` can still seal it by hand.
    func sealCrashReports() {
        let crashed = log.takeMarkedSessions()
        guard !crashed.isEmpty, let options = configuration.reports else { return }
        guard let reader = log.reportReader, let outbox = options.outbox ?? log.reportOutbox else {
            report(RecorderFailure(
                error: .failed(path: log.path, reason: "\(crashed.count) crashed or hung session(s) not reported: this log has no outbox beside it; set reports.outbox"),
                unrecorded: []
            ))
            return
        }
        for id in crashed {
            do {
                let session = try reader.session(id)
                let reason = session.ending?.reportReason ?? ReportReason(kind: .crash)
                try outbox.makeFolder()
                let sealed = try reader.sealReport(
                    session: id, reason: reason, options: options, temporaryFile: outbox.temporaryFile(), now: configuration.clock()
                )
                try outbox.add(sealed, held: options.consent == .askFirst, now: configuration.clock())
            } catch {
                report(RecorderFailure(error: error, unrecorded: []))
            }
        }
    }

    /// Notes the first trigger among the events just written (`items`, whose first event got
    /// seq `first` and follows ticket `firstTicket`): an action the hang watchdog found hung,
    /// an action the app marks as an error, or one after which an invariant fails (folding
    /// `progress.shadow` on). A pass over the batch only when reports are on and the session
    /// has no trigger yet: this code runs unspecialised for the app's types.
    func noteTriggers(
        in items: ArraySlice<RecordingBuffer<State, Action>.Item>, from first: Int64, firstTicket: UInt64, session: Int64, progress: inout Progress
    ) {
        // Hangs that ended among these events (or, lost in a gap, before them): taken either way.
        let hangs: [UInt64] = buffer.hangWatchdog == nil ? [] : buffer.contents.withLock { contents in
            // Almost always none: no pass over the batch then.
            guard !contents.endedHangs.isEmpty else { return [] }
            let events = UInt64(items.count(where: { if case .event = $0 { true } else { false } }))
            let through = firstTicket + events
            defer { contents.endedHangs.removeAll { $0.ticket <= through } }
            return contents.endedHangs.filter { $0.ticket > firstTicket && $0.ticket <= through }.map(\.ticket)
        }
        guard configuration.reports != nil, progress.trigger == nil, progress.triggerReported != session else {
            progress.shadow = nil  // no more reports this session: nothing to fold for
            return
        }
        let isError = configuration.errorActions
        let invariants = checksInvariants ? configuration.invariants : nil
        guard isError != nil || invariants != nil || !hangs.isEmpty else { return }
        var seq = first, ticket = firstTicket
        for item in items {
            switch item {
            case let .event(dispatched, _):
                defer { seq += 1 }
                ticket += 1
                if hangs.contains(ticket) {
                    progress.trigger = (session, seq, ReportReason(kind: .hang))
                    progress.shadow = nil
                    return
                }
                if let isError, isError(dispatched.action) {
                    progress.trigger = (session, seq, ReportReason(kind: .errorAction))
                    progress.shadow = nil
                    return
                }
                if let invariants, progress.shadow != nil {
                    invariants.reducer(&progress.shadow!, dispatched.action)
                    if let broken = invariants.firstBroken(by: progress.shadow!) {
                        progress.trigger = (session, seq, ReportReason(kind: .invariant, name: broken.name))
                        progress.shadow = nil
                        return
                    }
                }
            case let .snapshot(snapshot):
                // The live state: the shadow starts again from it (a reducer that reads the
                // clock drifts no further than a snapshot interval).
                if invariants != nil { progress.shadow = snapshot.state }
            case let .freshState(state, _):
                if invariants != nil { progress.shadow = state }
            }
        }
    }

    /// Seals the report of the trigger noted, once the actions after it are written — or now,
    /// with those there are, when its session is ending.
    func sealTriggerReport(progress: inout Progress, sessionEnding: Bool) {
        guard let trigger = progress.trigger, let options = configuration.reports else { return }
        let through = trigger.seq + Int64(max(options.eventsAfterTrigger, 0))
        guard sessionEnding || (progress.lastSeq ?? 0) >= through || session?.id != trigger.session else { return }
        progress.trigger = nil
        progress.triggerReported = trigger.session
        guard let reader = log.reportReader, let outbox = options.outbox ?? log.reportOutbox else {
            report(RecorderFailure(
                error: .failed(path: log.path, reason: "a \(trigger.reason.kind) trigger was not reported: this log has no outbox beside it; set reports.outbox"),
                unrecorded: []
            ))
            return
        }
        do {
            var reason = trigger.reason
            // An error action or a hang is named by its action's case, as the log stores it.
            if reason.name == nil { reason.name = try reader.event(at: trigger.seq).actionCase }
            try outbox.makeFolder()
            let sealed = try reader.sealReport(
                session: trigger.session, trigger: trigger.seq, through: through, reason: reason,
                options: options, temporaryFile: outbox.temporaryFile(), now: configuration.clock()
            )
            try outbox.add(sealed, held: options.consent == .askFirst, now: configuration.clock())
        } catch {
            report(RecorderFailure(error: error, unrecorded: []))
        }
    }
}
