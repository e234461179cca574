import Foundation
import Rewind

/// How the writer loses actions without losing track of them, and resumes: every failure to
/// write ends the session with a ``PendingGap``; the gap is recorded, with the session recording
/// resumes in, from the first fresh state the dispatch path hands over after it.
extension RecorderWriter {
    /// What came of a batch that follows a loss.
    enum Resumption {
        /// The gap is recorded and `session` begun from the batch's fresh state: `lost` are the
        /// batch's actions before that state (counted in the gap), `rest` what follows it.
        case resumed(LogSession, lost: [RecorderFailure<Action>], rest: ArraySlice<RecordingBuffer<State, Action>.Item>)
        /// Still lost: the batch had no fresh state, or recording it failed again.
        case lost([RecorderFailure<Action>], events: Int)
    }

    /// Counts `items` into `gap`, which is now the loss being tallied, asks the dispatch path for
    /// a fresh state to resume from, and reports `items` as not written.
    func lose(
        _ items: ArraySlice<RecordingBuffer<State, Action>.Item>, to gap: PendingGap<Action>, progress: inout Progress
    ) -> (failures: [RecorderFailure<Action>], events: Int) {
        var gap = gap
        gap.add(items)
        progress.gap = gap
        progress.shadow = nil
        buffer.freshStateWanted.store(true, ordering: .releasing)
        return Self.unwritten(items, gap.latest)
    }

    /// Counts the actions the dispatch path let go on a stuck store into the loss their session
    /// ends with — the one being tallied when the stuck write failed too, else a new one after
    /// the last event written — and reports them. The writer has already asked for a fresh state.
    func letGo(_ stalled: StalledActions<Action>, progress: inout Progress) {
        let error = stalled.error
        var gap = progress.gap ?? session.map { PendingGap(session: $0.id, afterSeq: progress.position(in: $0), error: error) }
            // No session could begin yet: the gap's session and seq are set when one does.
            ?? PendingGap(session: 0, afterSeq: 0, error: error)
        gap.add(stalled)
        progress.gap = gap
        report(RecorderFailure(error: error, unrecorded: stalled.kept.map(\.action), unlisted: stalled.others))
    }

    /// Ends the loss `gap` of `session` with `items`: the actions before the batch's fresh state
    /// are lost too; from that state a new session begins, recorded with the gap in one
    /// transaction (in a log opened anew where the file was, when it vanished).
    func resume(
        after gap: PendingGap<Action>, in session: LogSession, items: ArraySlice<RecordingBuffer<State, Action>.Item>, progress: inout Progress
    ) -> Resumption {
        var gap = gap
        let resume = items.firstIndex { if case .freshState = $0 { true } else { false } }
        let before = items[..<(resume ?? items.endIndex)]
        gap.add(before)
        let lostHere = Self.actions(in: before)
        guard let resume, case let .freshState(state, time) = items[resume] else {
            progress.gap = gap
            return .lost([RecorderFailure(error: gap.latest, unrecorded: lostHere)], events: lostHere.count)
        }
        let resumed: LogSession
        do {
            if case .fileVanished = gap.error {
                gap.record = try reopen(gap.record, app: session.app, state: state, at: Date(timeIntervalSince1970: time.seconds))
            }
            resumed = try log.recordGap(
                gap.record, resumingWith: session.app, codec: configuration.codec, state: configuration.redaction.scrubbed(state),
                info: sessionInfo, shapes: shapes, at: Date(timeIntervalSince1970: time.seconds)
            )
        } catch {
            // Still failing: the whole batch is lost too, and another fresh state is needed.
            gap.latest = error
            _ = lose(items[resume...], to: gap, progress: &progress)
            let lost = Self.unwritten(items, error)
            return .lost(lost.failures, events: lost.events)
        }
        hold(resumed)
        progress = Progress(lastSeq: nil, gap: nil, spacing: newSpacing())
        if checksInvariants { progress.shadow = state }
        let lost = lostHere.isEmpty ? [] : [RecorderFailure(error: gap.latest, unrecorded: lostHere)]
        return .resumed(resumed, lost: lost, rest: items[(resume + 1)...])
    }

    /// After the log vanished: opens (or creates) the log where it was and begins a session
    /// there that stands for the one the vanished log held, from the live state, so that `gap`
    /// — now that session's — can be recorded with recording resuming after it. The app's own
    /// log still points at the vanished file; the writer uses, and when done finishes, the new one.
    func reopen(_ gap: LogGap, app: AppIdentity, state: State, at date: Date) throws(EventLogError) -> LogGap {
        let reopened = try log.reopenedInPlace()
        let standIn: LogSession
        do {
            standIn = try reopened.beginSession(
                app: app, codec: configuration.codec, initialState: configuration.redaction.scrubbed(state),
                info: #"{"rewind":"stands for a session whose log file was deleted or replaced while recording"}"#, shapes: shapes, at: date
            )
        } catch {
            // Tried again with the next fresh state, from a log opened anew then.
            reopened.recorderFinished()
            throw error
        }
        let previous = target.withLock { target in
            defer { target = reopened }
            return target
        }
        // The app's log stays the app's; one reopened before is the writer's to let go.
        previous.recorderFinished()
        var gap = gap
        gap.session = standIn.id
        gap.afterSeq = standIn.baseSeq
        return gap
    }
}
