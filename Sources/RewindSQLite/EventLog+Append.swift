public import Foundation
import GRDB
import GRDBSQLite
import Rewind
public import RewindLogCore

extension EventLog {
    /// Appends actions to a session in one transaction and returns the seqs they were given.
    ///
    /// This is the store-agnostic way to record: any Redux-style store can call it from its own
    /// middleware. (Rewind's `Recorder` does the same work off the dispatch path, batching.)
    ///
    /// ```swift
    /// try log.append([EventRecord(action, source: ActionSource())], to: session)
    /// ```
    ///
    /// - Parameters:
    ///   - records: The actions, in the order they were reduced.
    ///   - session: The session they belong to (from ``beginSession(app:codec:initialState:info:shapes:at:)``).
    /// - Returns: The seqs given to the records, or `nil` when there were none.
    /// - Throws: `EventLogError`; when an action cannot be encoded nothing is written.
    @discardableResult
    @inlinable
    public func append<Action: Encodable & Sendable>(
        _ records: [EventRecord<Action>],
        to session: LogSession
    ) throws(EventLogError) -> ClosedRange<Int64>? {
        try append(records, to: session, redaction: Redaction<Void, Action>.none)
    }

    /// Appends actions to a session in one transaction, keeping off the disk what `redaction`
    /// says, and returns the seqs they were given.
    ///
    /// The policy's state scrub applies to states this log is given, so pass states through
    /// `Redaction.scrubbed(_:)` before ``beginSession(app:codec:initialState:info:shapes:at:)`` and
    /// ``appendSnapshot(_:to:after:at:)``, as the `Recorder` does.
    ///
    /// - Parameters:
    ///   - records: The actions, in the order they were reduced.
    ///   - session: The session they belong to.
    ///   - redaction: What to keep off the disk.
    /// - Returns: The seqs given to the records, or `nil` when there were none.
    /// - Throws: `EventLogError`; when an action cannot be encoded nothing is written.
    // Inlinable, so that encoding the records is specialised for the app's action where it
    // calls this, as the recorder's batches are (`EncodedBatch`).
    @discardableResult
    @inlinable
    public func append<State, Action: Encodable & Sendable>(
        _ records: [EventRecord<Action>],
        to session: LogSession,
        redaction: Redaction<State, Action>
    ) throws(EventLogError) -> ClosedRange<Int64>? {
        let path = self.path
        return try append(to: session) { codec throws(EventLogError) in
            let encoder = EventEncoder(codec: codec, redaction: redaction, path: path)
            var writes: [LogWrite] = []
            writes.reserveCapacity(records.count)
            for record in records {
                let (event, failure) = encoder.encode(record.action, source: record.source, time: record.time.timeIntervalSince1970)
                if let failure { throw failure }
                writes.append(.event(event))
            }
            return writes
        }
    }

    /// Writes what `encode` makes with the session's codec, in one transaction (in which a
    /// codec with symbols interns them).
    @usableFromInline
    func append(to session: LogSession, _ encode: (any PayloadCodec) throws(EventLogError) -> [LogWrite]) throws(EventLogError) -> ClosedRange<Int64>? {
        let storage = try storage(for: session)
        return try writeEncoding { db in try insert(try encode(storage.codec), into: storage, in: db) }
    }

    /// Stores a snapshot of the state after event `seq` of `session`.
    ///
    /// - Parameters:
    ///   - state: The state after `seq`.
    ///   - session: The session the snapshot belongs to (its seq must be one of its events, or its base seq).
    ///   - seq: The event the state follows.
    ///   - date: When the snapshot was taken.
    public func appendSnapshot<State: Encodable>(
        _ state: State,
        to session: LogSession,
        after seq: Int64,
        at date: Date = Date()
    ) throws(EventLogError) {
        let storage = try storage(for: session)
        let path = self.path
        try writeEncoding { db in
            let data: Data
            do { data = try storage.codec.encode(state) } catch {
                throw EventLogError.encodingFailed(path: path, seq: seq, actionCase: "state", reason: "\(error)")
            }
            try Self.insertSnapshot(
                db, session: session.id, seq: seq, time: date.timeIntervalSince1970, kind: "periodic",
                columns: try storage.snapshotColumns(data, seq: seq)
            )
        }
    }

    /// Writes events and snapshots, in order, inside the caller's transaction, and moves the
    /// session's bounds and count along; returns the seqs the events got. Events go in several
    /// rows a statement (``EventRows``).
    ///
    /// Each event is given its seq here, the next after the last ever assigned, rather than by
    /// SQLite on insert: an encrypted payload is sealed to its seq before it is inserted. A
    /// payload seen twice before is stored once and referred to (``SharedPayloads``).
    ///
    /// The rows are the log's to take apart: each is moved out of `writes` into its statement's
    /// row, not copied (a copy retained and released each of an event's strings and its
    /// payload once more per row; `writes` left shared with the caller is copied once instead).
    func insert(_ writes: consuming [LogWrite], into storage: SessionStorage, in db: Database) throws -> ClosedRange<Int64>? {
        var rows = EventRows(db)
        let isText = storage.isText
        var first: Int64?
        var last: Int64?
        var count = 0
        var sharedPresent = SharedPayloads.Presence()
        try writes.withUnsafeMutableBufferPointer { writes in
            for index in writes.indices {
                let write = writes.moveElement(from: index)
                // An empty snapshot in its place (no allocation), for the array to free.
                writes.initializeElement(at: index, to: .snapshot(time: 0, state: Data()))
                switch consume write {
                case let .event(event):
                    let previous = try last ?? Self.lastAssignedSeq(db)
                    guard previous < LoggedEvent.largestSeq else {
                        throw RowDamage("the log's last seq is \(previous), at or beyond the largest a log holds (\(LoggedEvent.largestSeq))")
                    }
                    let seq = previous + 1
                    let sourceID = try sources.id(for: event.source, in: db)
                    let actionID = try actions.id(for: event.actionCase, in: db)
                    let payload = try event.payload.map { payload throws in try storage.stored(payload, seq: seq, kind: .event) }
                    // Sealed payloads never repeat: only those in the clear are worth remembering.
                    let shared = storage.seal == nil
                        ? try payload.flatMap { try sharedPayloads.reference(for: $0, isText: isText, present: &sharedPresent, in: db) }
                        : nil
                    try rows.add(EventRows.Row(
                        seq: seq, session: storage.session, time: event.time, actionID: actionID,
                        payload: shared.map { .shared($0) } ?? payload.map { .inline($0, isText: isText) } ?? .none,
                        sourceID: sourceID, info: event.info, redaction: event.redaction,
                        causeDistance: event.cause?.distance(from: seq), rootDistance: event.root?.distance(from: seq)
                    ))
                    if first == nil { first = seq }
                    last = seq
                    count += 1
                case let .snapshot(time, state, placed, deflation):
                    // The events before it go in first, in the order written.
                    try rows.flush()
                    let seq = try placed ?? last ?? Self.lastAssignedSeq(db)
                    try Self.insertSnapshot(
                        db, session: storage.session, seq: seq, time: time, kind: "periodic",
                        columns: try storage.snapshotColumns(state, deflation: deflation, seq: seq)
                    )
                }
            }
        }
        try rows.finish()
        sharedPayloads.keep(sharedPresent)
        guard let first, let last else { return nil }
        // A cached statement: compiling this per transaction showed in the writer's profile.
        try db.cachedStatement(
            sql: "UPDATE sessions SET first_seq = coalesce(first_seq, ?), last_seq = ?, event_count = event_count + ? WHERE id = ?"
        ).execute(arguments: [first, last, count, storage.session])
        return first...last
    }
}
