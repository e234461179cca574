import Foundation
import Rewind

extension EventLog {
    /// The state an app had when its latest session in this log ended: the session's latest
    /// snapshot, with the events after it folded through `reducer` — so an app can use the log
    /// as its only storage.
    ///
    /// ```swift
    /// let log = try EventLog(path: url.path)
    /// let state = try log.restoredState(app: identity, reducer: Shop.reducer) ?? ShopState()
    /// let recorder = Recorder<ShopState, ShopAction>(log: log, app: identity)
    /// let store = Store(initialState: state, reducer: Shop.reducer, middleware: recorder.middleware)
    /// ```
    ///
    /// Payloads recorded with older schema versions than `app` declares go through `upcaster`
    /// first.
    ///
    /// - Parameters:
    ///   - app: The app whose latest session to restore (matched by ``AppIdentity/id``), with
    ///     its current schema versions.
    ///   - reducer: The app's reducer.
    ///   - upcaster: Upgrades old payloads.
    /// - Returns: The state, or `nil` when the log has no session of this app.
    /// - Throws: ``EventLogError/decodingFailed(path:seq:actionCase:codingPath:reason:)`` naming
    ///   the seq, the case and the versions when a payload does not decode.
    public func restoredState<State: Decodable & Sendable, Action: Decodable & Sendable>(
        app: AppIdentity,
        reducer: Reducer<State, Action>,
        upcaster: Upcaster = .none
    ) throws(EventLogError) -> State? {
        guard let session = try sessions().last(where: { $0.app.id == app.id }) else { return nil }
        guard let codec = codecs[session.codec] else {
            throw .unknownCodec(path: path, session: session.id, codec: session.codec)
        }
        guard let snapshot = try snapshot(session: session.id) else {
            throw .noSnapshot(path: path, session: session.id, seq: session.seqRange?.upperBound ?? session.baseSeq)
        }
        let recorded = session.app
        var state: State = try upgrading(
            snapshot.state, seq: snapshot.seq, what: "\(snapshot.kind) snapshot",
            recordedVersion: recorded.stateSchemaVersion, currentVersion: app.stateSchemaVersion, upgrade: upcaster.state
        ) { data throws(EventLogError) in
            try LoggedSnapshot(session: snapshot.session, seq: snapshot.seq, time: snapshot.time, kind: snapshot.kind, state: data ?? Data())
                .decodeState(as: State.self, codec: codec, path: path)
        }
        guard let last = session.seqRange?.upperBound, last > snapshot.seq else { return state }
        var cursor = events(EventFilter(seqs: (snapshot.seq + 1)...last, session: session.id))
        while let event = try cursor.next() {
            let action: Action = try upgrading(
                event.payload, seq: event.seq, what: event.actionCase,
                recordedVersion: recorded.actionSchemaVersion, currentVersion: app.actionSchemaVersion, upgrade: upcaster.action
            ) { data throws(EventLogError) in
                var upgraded = event
                upgraded.payload = data
                return try upgraded.decodeAction(as: Action.self, codec: codec, path: path)
            }
            reducer(&state, action)
        }
        return state
    }

    /// Runs `upgrade` on a payload recorded at an older version, then `decode`; a failure says
    /// which versions were involved.
    private func upgrading<T>(
        _ payload: Data?,
        seq: Int64,
        what: String,
        recordedVersion: Int,
        currentVersion: Int,
        upgrade: (@Sendable (Data, Int) throws -> Data)?,
        decode: (Data?) throws(EventLogError) -> T
    ) throws(EventLogError) -> T {
        var data = payload
        if recordedVersion < currentVersion, let upgrade, let payload {
            do {
                data = try upgrade(payload, recordedVersion)
            } catch {
                throw .decodingFailed(path: path, seq: seq, actionCase: what, codingPath: "",
                                      reason: "the upcaster failed to upgrade it from schema version \(recordedVersion): \(error)")
            }
        }
        do {
            return try decode(data)
        } catch let .decodingFailed(path, seq, actionCase, codingPath, reason) where recordedVersion != currentVersion {
            let help = upgrade == nil ? "; no upcaster was given for it" : " after upcasting"
            throw .decodingFailed(path: path, seq: seq, actionCase: actionCase, codingPath: codingPath,
                                  reason: "\(reason) (recorded with schema version \(recordedVersion), the app is at \(currentVersion)\(help))")
        }
    }
}
