public import Foundation
package import Rewind
import Synchronization

/// The one way Rewind reads a session's actions and states: every replay (``Replayer`` in
/// RewindReplay, its step cursor, ``LogReader/restoredState(app:reducer:upcaster:typeShapes:onSchemaDrift:)``, the `rewind`
/// tool) decodes through here, so the session's codec, upcasting and the errors that name a
/// seq are the same everywhere.
///
/// It knows the session's codec, its key and the versions it was recorded at, so callers pass
/// none of them.
package struct SessionReader: Sendable {
    /// The log read.
    package let log: any LogReader
    /// The session read.
    package let session: LogSession
    /// Where a fold of the whole session ends: its last event, or, for a session without
    /// events, past every snapshot it kept — retention may have emptied it of events after its
    /// base, keeping the snapshot it continues from.
    package var lastSeq: Int64 { session.seqRange?.upperBound ?? LoggedEvent.largestSeq }
    let storage: SessionStorage
    var codec: any PayloadCodec { storage.codec }
    let upgrades: SchemaUpgrades?
    /// Where the current types' shapes come from, to say in a decoding failure what changed
    /// since the session was recorded.
    let typeShapes: SessionShapes.Source
    /// Those explanations, found once per part and type: a fold that skips undecodable events
    /// may fail on thousands.
    private let driftNotes: DriftNotes
    /// Whether actions are upgraded before decoding: recorded at another action schema version
    /// than `upgrades` is for. Found once: looked up per action, the versions' copies were a
    /// few percent of reading and decoding a binary log.
    private let upgradesActions: Bool

    /// A reader of `session`, upgrading payloads recorded at older versions than `upgrades.app`.
    ///
    /// - Throws: ``EventLogError/unknownCodec(path:session:codec:)`` when this build lacks the
    ///   session's codec; ``EventLogError/keyMissing(path:session:keyID:)`` or
    ///   ``EventLogError/wrongKey(path:session:keyID:)`` when it is encrypted and the log lacks
    ///   its key.
    package init(
        log: any LogReader, session: LogSession, upgrades: SchemaUpgrades? = nil, typeShapes: SessionShapes.Source = .generatedOrProbed
    ) throws(EventLogError) {
        let storage = try log.storage(for: session)
        // Seqs beyond the largest a log holds only come from a tampered file; refusing them
        // here keeps every `seq + 1` of a replay from overflowing.
        let seqs = [session.baseSeq, session.seqRange?.lowerBound ?? 0, session.seqRange?.upperBound ?? 0]
        guard seqs.allSatisfy({ (0...LoggedEvent.largestSeq).contains($0) }) else {
            throw .corrupt(path: log.path, detail: "session \(session.id) has seqs outside 0…\(LoggedEvent.largestSeq)")
        }
        self.log = log
        self.session = session
        self.storage = storage
        self.upgrades = upgrades
        self.typeShapes = typeShapes
        driftNotes = DriftNotes()
        upgradesActions = upgrades.map { $0.app.actionSchemaVersion != session.app.actionSchemaVersion } ?? false
    }

    /// Hands `onSchemaDrift` each way the app's `State` and `Action` changed since `session`
    /// was recorded (``SchemaDrift``): what restoring at launch and every replay do before
    /// they first read a session. A damaged shape only loses the report; reading goes on (and
    /// a payload that then does not decode says what changed in its error).
    package static func reportDrift<State: Decodable, Action: Decodable>(
        of session: LogSession, in log: any LogReader, state: State.Type, action: Action.Type,
        upgrades: SchemaUpgrades?, typeShapes: SessionShapes.Source, to onSchemaDrift: (SchemaDrift) -> Void
    ) {
        guard typeShapes != .none, session.actionFingerprint != nil || session.stateFingerprint != nil else { return }
        ((try? log.schemaDrift(session: session.id, state: state, action: action, upgrades: upgrades, shapes: typeShapes)) ?? [])
            .forEach(onSchemaDrift)
    }

    // MARK: - States

    /// The latest snapshot of the session at or before `seq`, decoded (and upgraded).
    ///
    /// - Throws: ``EventLogError/noSnapshot(path:session:seq:)`` when the session has none that
    ///   early; a decoding error naming the snapshot.
    package func state<State: Decodable>(_ type: State.Type, atOrBefore seq: Int64) throws(EventLogError) -> (seq: Int64, state: State) {
        guard let snapshot = try log.snapshot(session: session.id, atOrBefore: seq) else {
            throw .noSnapshot(path: log.path, session: session.id, seq: seq)
        }
        guard (0...LoggedEvent.largestSeq).contains(snapshot.seq) else {
            throw .corrupt(path: log.path, detail: "a snapshot of session \(session.id) is at seq \(snapshot.seq), outside 0…\(LoggedEvent.largestSeq)")
        }
        let what = "\(snapshot.kind) snapshot"
        let encoded = try storage.encoded(snapshot.state, seq: snapshot.seq, kind: .snapshot, what: "the \(what)")
        let versions = (recorded: session.app.stateSchemaVersion, current: upgrades?.app.stateSchemaVersion)
        let upgraded = try upgrade(encoded, seq: snapshot.seq, what: what, versions: versions, with: upgrades?.upcaster.state)
        let state = try explainingDrift(.state, State.self) { () throws(EventLogError) in
            try reportingVersions(versions, upgraded: upgraded != nil, hasUpgrade: upgrades?.upcaster.state != nil) { () throws(EventLogError) in
                try DecodingFailure.map(path: log.path, seq: snapshot.seq, actionCase: what) {
                    try codec.decode(State.self, from: upgraded ?? encoded)
                }
            }
        }
        return (snapshot.seq, state)
    }

    /// The session's state before its first event — or, for a part of a session (a report's
    /// window, an export of some of its events), before the first event it holds: its earliest
    /// snapshot.
    package func initialState<State: Decodable>(_ type: State.Type) throws(EventLogError) -> (seq: Int64, state: State) {
        do {
            return try state(type, atOrBefore: session.baseSeq)
        } catch .noSnapshot {
            guard let earliest = try log.snapshotIndex(session: session.id).first else { throw .noSnapshot(path: log.path, session: session.id, seq: session.baseSeq) }
            return try state(type, atOrBefore: earliest.seq)
        }
    }

    // MARK: - Actions

    /// Decodes (and upgrades) the action of one event of this session.
    ///
    /// - Throws: ``EventLogError/decodingFailed(path:seq:actionCase:codingPath:reason:)`` naming
    ///   the seq, the case, where decoding failed or why there is no payload, and the versions
    ///   involved when the session was recorded at another.
    package func action<Action: Decodable>(of event: LoggedEvent, as type: Action.Type) throws(EventLogError) -> Action {
        guard let payload = event.payload else {
            throw LoggedEvent.missingPayload(path: log.path, seq: event.seq, actionCase: event.actionCase, redaction: event.redaction)
        }
        // `withUnsafeBytes` rethrows untyped errors: carry the typed one out in a result.
        let decoder = codec.decoder(for: type)
        return try explainingDrift(.action, type) { () throws(EventLogError) in
            try payload.withUnsafeBytes { bytes in
                Result { () throws(EventLogError) in try action(decoder, seq: event.seq, actionCase: event.actionCase, payload: bytes) }
            }.get()
        }
    }

    /// Calls `body` with each decoded (and upgraded) action of the session from `first` through
    /// `last`, in order, until it returns ``FoldStep/stop``. Reads through the log's raw fast path
    /// a page at a time: memory stays flat, and an empty range (`first > last`) reads nothing.
    ///
    /// - Parameters:
    ///   - skipped: Seqs to leave out (what-if).
    ///   - undecodable: Called for an event that does not decode, which is then left out; `nil`
    ///     stops the fold with the error instead.
    /// - Returns: Whether `body` stopped the fold.
    @discardableResult
    package func forEachAction<Action: Decodable>(
        _ type: Action.Type,
        from first: Int64,
        through last: Int64,
        skipping skipped: Set<Int64> = [],
        undecodable: ((_ seq: Int64, _ actionCase: String, _ error: EventLogError) -> Void)? = nil,
        _ body: (_ seq: Int64, _ action: Action) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> Bool {
        try forEachDecodedEvent(type, from: first, through: last, skipping: skipped, undecodable: undecodable) { event, action throws(EventLogError) in
            try body(event.seq, action)
        }
    }

    /// ``forEachAction(_:from:through:skipping:undecodable:_:)`` with each action's raw event
    /// (its case id, for a walk that groups by case without building a string per action).
    // Inlined into `forEachAction`, so that its seq-only body is called directly. Not inlined,
    // the one closure more per event cost binary read + decode 2–5 % (`rewind-bench --workload
    // replay --codec binary`, old and new binaries alternated: 0.95–0.98); inlined, 0.97–1.00.
    @discardableResult @inline(__always)
    package func forEachDecodedEvent<Action: Decodable>(
        _ type: Action.Type,
        from first: Int64,
        through last: Int64,
        skipping skipped: Set<Int64> = [],
        undecodable: ((_ seq: Int64, _ actionCase: String, _ error: EventLogError) -> Void)? = nil,
        _ body: (_ event: RawEvent, _ action: Action) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> Bool {
        guard first <= last else { return false }
        let decoder = codec.decoder(for: type)
        // Whether the fold stopped on an action that did not decode (rather than on `body`):
        // that error is explained once the read is over, since explaining reads the log.
        var stoppedUndecodable = false
        do {
            return try log.forEachRawEvent(session: session.id, from: first, through: last) { event throws(EventLogError) -> FoldStep in
                if !skipped.isEmpty, skipped.contains(event.seq) { return .continue }
                let action: Action
                do throws(EventLogError) {
                    guard let payload = event.payload else {
                        throw LoggedEvent.missingPayload(path: log.path, seq: event.seq, actionCase: event.actionCase, redaction: event.redaction)
                    }
                    action = try self.action(decoder, seq: event.seq, actionCase: event.actionCase, payload: payload)
                } catch {
                    guard let undecodable else {
                        stoppedUndecodable = true
                        throw error
                    }
                    undecodable(event.seq, event.actionCase, error)
                    return .continue
                }
                return try body(event, action)
            }
        } catch {
            guard stoppedUndecodable else { throw error }
            throw explained(error, .action, type)
        }
    }

    // MARK: - Folding

    /// The one fold: `start`'s state with every action of the session after it through `last`
    /// reduced into it, in order. Restoring at launch and every replay fold through here.
    ///
    /// - Parameters:
    ///   - skipped: Seqs to leave out (what-if).
    ///   - undecodable: As in ``forEachAction(_:from:through:skipping:undecodable:_:)``.
    ///   - folded: Called after each action is reduced, with its seq.
    package func fold<State: Decodable, Action: Decodable>(
        _ reducer: Reducer<State, Action>,
        from start: (seq: Int64, state: State),
        through last: Int64,
        skipping skipped: Set<Int64> = [],
        undecodable: ((_ seq: Int64, _ actionCase: String, _ error: EventLogError) -> Void)? = nil,
        folded: (_ seq: Int64) throws(EventLogError) -> Void = { _ in }
    ) throws(EventLogError) -> State {
        var state = start.state
        try forEachAction(Action.self, from: start.seq + 1, through: last, skipping: skipped, undecodable: undecodable) { seq, action throws(EventLogError) in
            reducer(&state, action)
            try folded(seq)
            return .continue
        }
        return state
    }

    /// Decodes one stored payload with `decode` (opening it first when the session is
    /// encrypted), upgrading it first when the session was recorded at an older action schema
    /// version and an upgrade is given. `actionCase` is only made for errors.
    private func action<Action: Decodable>(
        _ decode: PayloadDecoder<Action>, seq: Int64, actionCase: @autoclosure () -> String, payload: UnsafeRawBufferPointer
    ) throws(EventLogError) -> Action {
        try storage.withEncoded(payload, seq: seq, kind: .event, what: "the payload of \(actionCase())") { encoded throws(EventLogError) in
            try action(decode, seq: seq, actionCase: actionCase(), encoded: encoded)
        }
    }

    private func action<Action: Decodable>(
        _ decode: PayloadDecoder<Action>, seq: Int64, actionCase: @autoclosure () -> String, encoded payload: UnsafeRawBufferPointer
    ) throws(EventLogError) -> Action {
        guard upgradesActions else {
            // The hot path: same version (or no upgrades asked for), decoded in place.
            return try DecodingFailure.map(path: log.path, seq: seq, actionCase: actionCase()) {
                try decode(payload)
            }
        }
        let versions = (recorded: session.app.actionSchemaVersion, current: upgrades?.app.actionSchemaVersion)
        let upgraded = try upgrade(Data(payload), seq: seq, what: actionCase(), versions: versions, with: upgrades?.upcaster.action)
        return try reportingVersions(versions, upgraded: upgraded != nil, hasUpgrade: upgrades?.upcaster.action != nil) { () throws(EventLogError) in
            try DecodingFailure.map(path: log.path, seq: seq, actionCase: actionCase()) {
                if let upgraded { return try upgraded.withUnsafeBytes { try decode($0) } }
                return try decode(payload)
            }
        }
    }

    // MARK: - Schema drift

    /// Runs `decode`; a decoding failure also says how `type` changed since the session was
    /// recorded (``explained(_:_:_:)``). Not inside a read of the log: explaining reads it.
    private func explainingDrift<T: Decodable, Result>(
        _ part: SchemaDrift.Part, _ type: T.Type, _ decode: () throws(EventLogError) -> Result
    ) throws(EventLogError) -> Result {
        do {
            return try decode()
        } catch {
            throw explained(error, part, type)
        }
    }

    /// A decoding failure with, when the session recorded `type`'s shape and it differs from
    /// the current one, what changed and what to do; any other error as it is.
    private func explained<T: Decodable>(_ error: EventLogError, _ part: SchemaDrift.Part, _ type: T.Type) -> EventLogError {
        guard case let .decodingFailed(path, seq, actionCase, codingPath, reason) = error else { return error }
        return .decodingFailed(path: path, seq: seq, actionCase: actionCase, codingPath: codingPath, reason: reason + driftNote(part, type))
    }

    /// `. ShopAction changed since session 3 was recorded: …`, or nothing.
    private func driftNote<T: Decodable>(_ part: SchemaDrift.Part, _ type: T.Type) -> String {
        let fingerprint = part == .action ? session.actionFingerprint : session.stateFingerprint
        guard fingerprint != nil, typeShapes != .none else { return "" }
        let key = DriftNotes.Key(part: part, type: ObjectIdentifier(type))
        if let note = driftNotes.notes.withLock({ $0[key] }) { return note }
        // A damaged stored shape only loses the note.
        let recorded = try? log.shapes(session: session.id)
        let current = TypeShape.of(type, probing: typeShapes == .generatedOrProbed)
        let drift = SchemaDrift.find(
            session: session, part: part, recorded: part == .action ? recorded?.action : recorded?.state, current: current,
            currentVersion: part == .action ? upgrades?.app.actionSchemaVersion : upgrades?.app.stateSchemaVersion,
            hasUpcaster: (part == .action ? upgrades?.upcaster.action : upgrades?.upcaster.state) != nil, whatever: true
        )
        let note = drift.map { drift in
            ". \(drift.typeName) changed since session \(session.id) was recorded: "
                + drift.changes.map(\.description).joined(separator: "; ") + ". " + drift.advice
        } ?? ""
        driftNotes.notes.withLock { $0[key] = note }
        return note
    }

    // MARK: - Upcasting

    /// Runs `upgrade` on a payload recorded at an older version than the app's; `nil` when
    /// there is nothing to upgrade.
    private func upgrade(
        _ payload: Data,
        seq: Int64,
        what: @autoclosure () -> String,
        versions: (recorded: Int, current: Int?),
        with upgrade: (@Sendable (Data, Int) throws -> Data)?
    ) throws(EventLogError) -> Data? {
        guard let current = versions.current, versions.recorded < current, let upgrade else { return nil }
        do {
            return try upgrade(payload, versions.recorded)
        } catch {
            throw .decodingFailed(path: log.path, seq: seq, actionCase: what(), codingPath: "",
                                  reason: "the upcaster failed to upgrade it from schema version \(versions.recorded): \(error)")
        }
    }

    /// Runs `decode`; when the payload was recorded at another version than the app's, a
    /// decoding failure says which versions, and whether an upcaster ran.
    private func reportingVersions<T>(
        _ versions: (recorded: Int, current: Int?),
        upgraded: Bool,
        hasUpgrade: Bool,
        _ decode: () throws(EventLogError) -> T
    ) throws(EventLogError) -> T {
        do {
            return try decode()
        } catch let .decodingFailed(path, seq, actionCase, codingPath, reason) {
            guard let current = versions.current, current != versions.recorded else {
                throw .decodingFailed(path: path, seq: seq, actionCase: actionCase, codingPath: codingPath, reason: reason)
            }
            let help = upgraded ? " after upcasting" : hasUpgrade ? "" : "; no upcaster was given for it"
            throw .decodingFailed(path: path, seq: seq, actionCase: actionCase, codingPath: codingPath,
                                  reason: "\(reason) (recorded with schema version \(versions.recorded), the app is at \(current)\(help))")
        }
    }
}

extension LogReader {
    /// Decodes an event's action with the codec its session was recorded with.
    ///
    /// ```swift
    /// let event = try log.event(at: 12)
    /// let action = try log.decodeAction(of: event, as: ShopAction.self)
    /// ```
    ///
    /// - Parameters:
    ///   - event: An event read from this log.
    ///   - type: The app's action type.
    ///   - upgrades: Bring payloads recorded at older action schema versions up to the app's.
    /// - Throws: ``EventLogError/decodingFailed(path:seq:actionCase:codingPath:reason:)`` naming
    ///   the seq, the case and where decoding failed; ``EventLogError/unknownCodec(path:session:codec:)``.
    public func decodeAction<Action: Decodable>(of event: LoggedEvent, as type: Action.Type, upgrades: SchemaUpgrades? = nil) throws(EventLogError) -> Action {
        try SessionReader(log: self, session: session(event.session), upgrades: upgrades).action(of: event, as: type)
    }
}

extension LogReader {
    /// The encoded action of `event`: its payload, opened with its session's key when the
    /// session is encrypted; `nil` when it has none (withheld or unencodable).
    ///
    /// - Throws: ``EventLogError/keyMissing(path:session:keyID:)``,
    ///   ``EventLogError/wrongKey(path:session:keyID:)`` or
    ///   ``EventLogError/authenticationFailed(path:session:seq:what:)`` for an encrypted payload
    ///   that cannot be opened.
    public func payload(of event: LoggedEvent) throws(EventLogError) -> Data? {
        guard let payload = event.payload else { return nil }
        guard event.keyID != nil else { return payload }
        return try storage(for: session(event.session)).encoded(payload, seq: event.seq, kind: .event, what: "the payload of \(event.actionCase)")
    }
}

/// A reader's explanations of decoding failures by schema drift, shared by its copies.
private final class DriftNotes: Sendable {
    struct Key: Hashable {
        var part: SchemaDrift.Part
        var type: ObjectIdentifier
    }

    let notes = Mutex<[Key: String]>([:])
}
