public import Foundation
import Rewind
import RewindCoding
public import RewindLogCore
import RewindSQLite
public import Synchronization

/// A third log store, kept in memory and written on RewindLogCore alone: it implements the
/// reading protocol (`LogReader`) and the recording one (`RecordingLog`) and nothing else, so
/// that the store conformance suites (`LogReaderAnswers`, `RecordingDestinationTests`) prove
/// what a store must do to be one, with no SQLite or PostgreSQL in the way.
///
/// Its rows are what a store keeps: payloads and snapshots as encoded (sealed with the
/// session's key when it is encrypted), case paths by id, symbols as the log's codecs made
/// them. Every write is one transaction: it is built on a copy and committed whole, or not at
/// all. Retention keeps everything, as a PostgreSQL store's does (its own is the server's).
public final class MemoryLog: LogReader, RecordingLog {
    public let path: String
    public let codecs: PayloadCodecs
    public let keys: LogKeys
    private let contents: Mutex<Contents>

    /// While `true`, every write fails as a lost store's would (a fault for the recorder).
    public let isFailing = Atomic<Bool>(false)
    /// While `true`, every write waits, as on a store that stopped answering (a fault for the
    /// recorder); it goes on when the switch is turned off.
    public let isStalled = Atomic<Bool>(false)
    /// How long every write takes, in milliseconds, as on a slow store that still commits.
    public let writeDelay = Atomic<Int>(0)
    /// The `count` of every `eventPage` asked so far, in order (how readers page).
    public let pagesAsked = Mutex<[Int]>([])
    /// Whether it says it deflates snapshots (it keeps states as the codec wrote them).
    public let deflatesSnapshots: Bool
    /// The seq of each snapshot written, and whether its deflation came with it, made ahead
    /// (`LogWrite.snapshot`'s `deflation`: deflated, or found not worth it).
    public let snapshotsWritten = Mutex<[(seq: Int64, deflationMadeAhead: Bool)]>([])

    fileprivate struct Contents {
        var identity = UUID()
        var sessions: [Int64: LogSession] = [:]
        var nextSession: Int64 = 1
        /// Events in seq order.
        var events: [Row] = []
        var lastSeq: Int64 = 0
        var snapshots: [Int64: [LoggedSnapshot]] = [:]
        var shapes: [Int64: SessionShapes] = [:]
        var gaps: [LogGap] = []
        var symbols: [CodecSymbol] = []
        /// Case paths by id: `names[id - 1]`.
        var names: [String?] = []
    }

    fileprivate struct Row {
        var event: LoggedEvent
        var actionID: Int
    }

    public init(name: String = "memory-log", codecs: PayloadCodecs = .standard, keys: LogKeys = LogKeys(), deflatesSnapshots: Bool = false) {
        // Each log has its own codec instances: a binary codec's symbols are the log's.
        (self.path, self.codecs, self.keys) = (name, codecs.fresh(), keys)
        self.deflatesSnapshots = deflatesSnapshots
        contents = Mutex(Contents())
    }

    /// A copy of everything `log` holds, read through the protocol alone.
    public convenience init(copying log: any LogReader, name: String = "memory-log") throws {
        self.init(name: name, codecs: log.codecs, keys: log.keys)
        let symbols = try log.storedSymbols()
        for codec in codecs.interning { try codec.learn(symbols) }
        var copy = Contents()
        copy.identity = try log.identity() ?? UUID()
        copy.symbols = symbols
        for session in try log.sessions() {
            copy.sessions[session.id] = session
            copy.nextSession = max(copy.nextSession, session.id + 1)
            copy.shapes[session.id] = try log.shapes(session: session.id)
            copy.snapshots[session.id] = try log.snapshotIndex(session: session.id).compactMap { entry in
                try log.snapshot(session: session.id, atOrBefore: entry.seq)
            }
        }
        var cursor = log.events()
        while let event = try cursor.next() {
            copy.events.append(Row(event: event, actionID: copy.intern(event.actionCase)))
            copy.lastSeq = event.seq
        }
        copy.lastSeq = max(copy.lastSeq, copy.sessions.values.map(\.baseSeq).max() ?? 0)
        copy.gaps = try log.gaps()
        contents.withLock { $0 = copy }
    }

    // MARK: - Naming

    public func identity() throws(EventLogError) -> UUID? { contents.withLock { $0.identity } }

    /// Its rows read as a file of the latest schema does.
    public func schemaVersion() throws(EventLogError) -> Int { EventLog.latestSchemaVersion }

    public func storedSymbols() throws(EventLogError) -> [CodecSymbol] { contents.withLock { $0.symbols } }

    // MARK: - Sessions

    public func sessions() throws(EventLogError) -> [LogSession] {
        contents.withLock { $0.sessions.values.sorted { $0.id < $1.id } }
    }

    public func session(_ id: Int64) throws(EventLogError) -> LogSession {
        guard let session = contents.withLock({ $0.sessions[id] }) else { throw .sessionNotFound(path: path, session: id) }
        return session
    }

    public func session(containing seq: Int64) throws(EventLogError) -> LogSession {
        guard let id = contents.withLock({ $0.row(at: seq)?.event.session }) else {
            throw .seqNotFound(path: path, seq: seq, available: try seqRange())
        }
        return try session(id)
    }

    public func seqRange() throws(EventLogError) -> ClosedRange<Int64>? {
        contents.withLock { contents in
            guard let first = contents.events.first, let last = contents.events.last else { return nil }
            return first.event.seq...last.event.seq
        }
    }

    public func shapes(session id: Int64) throws(EventLogError) -> SessionShapes {
        guard let shapes = contents.withLock({ $0.sessions[id] == nil ? nil : $0.shapes[id] ?? SessionShapes() }) else {
            throw .sessionNotFound(path: path, session: id)
        }
        return shapes
    }

    public func gaps(session: Int64?) throws(EventLogError) -> [LogGap] {
        contents.withLock { $0.gaps.filter { gap in session.map { gap.session == $0 } ?? true } }
    }

    // MARK: - Events

    public func eventPage(_ filter: EventFilter, after seq: Int64, count: Int, newestFirst: Bool) throws(EventLogError) -> [LoggedEvent] {
        pagesAsked.withLock { $0.append(count) }
        guard count > 0 else { return [] }
        return contents.withLock { contents in
            var low = max(seq == .max ? seq : seq + 1, filter.seqs?.lowerBound ?? .min)
            var high = filter.seqs?.upperBound ?? .max
            if let id = filter.session {
                guard let bounds = contents.sessions[id]?.seqRange else { return [] }
                (low, high) = (max(low, bounds.lowerBound), min(high, bounds.upperBound))
            }
            guard low <= high else { return [] }
            let selected = contents.rows(in: low...high).lazy.map(\.event).filter { event in
                (filter.session.map { event.session == $0 } ?? true)
                    && (filter.times.map { $0.contains(event.time) } ?? true)
                    && (filter.actionCase.map { Self.matches(event.actionCase, $0) } ?? true)
                    && (filter.file.map { event.source.file.contains($0) } ?? true)
                    && (filter.line.map { Int(event.source.line) == $0 } ?? true)
            }
            return newestFirst ? Array(selected.reversed().prefix(count)) : Array(selected.prefix(count))
        }
    }

    /// A case path against a filter's case: a pattern with `*` globs (`?` one character), any
    /// other is the exact path.
    private static func matches(_ name: String, _ pattern: String) -> Bool {
        guard pattern.contains("*") else { return name == pattern }
        func match(_ name: Substring, _ pattern: Substring) -> Bool {
            guard let head = pattern.first else { return name.isEmpty }
            switch head {
            case "*": return match(name, pattern.dropFirst()) || (!name.isEmpty && match(name.dropFirst(), pattern))
            case "?": return !name.isEmpty && match(name.dropFirst(), pattern.dropFirst())
            default: return name.first == head && match(name.dropFirst(), pattern.dropFirst())
            }
        }
        return match(Substring(name), Substring(pattern))
    }

    public func forEachRawEvent(
        session: Int64, from first: Int64, through last: Int64, _ body: (RawEvent) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> Bool {
        guard first <= last else { return false }
        // A page at a time, as a store reads: the lock is never held while `body` runs.
        var after = first == .min ? nil : first - 1 as Int64?
        while true {
            let (page, names) = contents.withLock { contents in
                let low = after.map { $0 + 1 } ?? .min
                let rows = low > last ? [] : contents.rows(in: low...last).filter { $0.event.session == session }.prefix(256)
                return (Array(rows), contents.names)
            }
            guard let end = page.last?.event.seq else { return false }
            for row in page {
                let step = try Self.withBytes(row.event.payload) { payload throws(EventLogError) in
                    try body(RawEvent(seq: row.event.seq, actionID: row.actionID, names: names, payload: payload, redaction: row.event.redaction))
                }
                if step == .stop { return true }
            }
            guard end < last else { return false }
            after = end
        }
    }

    private static func withBytes<T>(
        _ data: Data?, _ body: (UnsafeRawBufferPointer?) throws(EventLogError) -> T
    ) throws(EventLogError) -> T {
        guard let data else { return try body(nil) }
        return try data.withUnsafeBytes { bytes in Result { () throws(EventLogError) in try body(bytes) } }.get()
    }

    // MARK: - Snapshots

    public func snapshot(session: Int64, atOrBefore seq: Int64) throws(EventLogError) -> LoggedSnapshot? {
        contents.withLock { $0.snapshots[session]?.last { $0.seq <= seq } }
    }

    public func snapshotIndex(session: Int64) throws(EventLogError) -> [(seq: Int64, kind: String, time: Double)] {
        contents.withLock { ($0.snapshots[session] ?? []).map { (seq: $0.seq, kind: $0.kind, time: $0.time) } }
    }

    // MARK: - Maintenance

    public func statistics(session: Int64?, seqs: ClosedRange<Int64>?, times: ClosedRange<Double>?) throws(EventLogError) -> LogStatistics {
        contents.withLock { contents in
            let events = contents.events.lazy.map(\.event).filter { event in
                session.map { event.session == $0 } ?? true && seqs.map { $0.contains(event.seq) } ?? true && times.map { $0.contains(event.time) } ?? true
            }
            var cases: [String: Int] = [:], sources: [SourceKey: Int] = [:]
            var payloadBytes = 0, first: Double?, last: Double?
            for event in events {
                cases[event.actionCase, default: 0] += 1
                let source = event.source
                sources[SourceKey(file: source.file, function: source.function, line: source.line, column: source.column, origin: source.origin.rawValue), default: 0] += 1
                payloadBytes += event.payload?.count ?? 0
                first = min(first ?? event.time, event.time)
                last = max(last ?? event.time, event.time)
            }
            let snapshots = contents.snapshots.filter { entry in session.map { entry.key == $0 } ?? true }.values.joined().filter { snapshot in
                seqs.map { $0.contains(snapshot.seq) } ?? true && times.map { $0.contains(snapshot.time) } ?? true
            }
            func ranked<Name: Comparable>(_ counts: [(Name, Int)]) -> [(Name, Int)] {
                counts.sorted { ($1.1, $0.0) < ($0.1, $1.0) }
            }
            return LogStatistics(
                actionCases: ranked(cases.map { ($0.key, $0.value) }).map { (name: $0.0, count: $0.1) },
                sources: ranked(sources.map { ("\($0.key.file):\($0.key.line) \($0.key.function)", $0.value) }).map { (location: $0.0, count: $0.1) },
                events: events.count,
                sessions: seqs != nil || times != nil
                    ? Set(events.map(\.session)).count : session.map { contents.sessions[$0] == nil ? 0 : 1 } ?? contents.sessions.count,
                snapshots: snapshots.count, timeSpan: first.flatMap { first in last.map { first...$0 } },
                bytesOnDisk: payloadBytes + snapshots.reduce(0) { $0 + $1.state.count }, payloadBytes: payloadBytes,
                snapshotBytes: snapshots.reduce(0) { $0 + $1.state.count }
            )
        }
    }

    public func activity(session: Int64?, seqs: ClosedRange<Int64>?, times: ClosedRange<Double>?, buckets: Int, top: Int) throws(EventLogError) -> LogActivity? {
        let buckets = min(max(buckets, 1), 1_000), top = min(max(top, 1), 100)
        return contents.withLock { contents in
            let events = contents.events.map(\.event).filter { event in
                session.map { event.session == $0 } ?? true && seqs.map { $0.contains(event.seq) } ?? true && times.map { $0.contains(event.time) } ?? true
            }
            guard let low = events.map(\.time).min(), let high = events.map(\.time).max(), (high - low).isFinite else { return nil }
            let width = (high - low) / Double(buckets)
            var counts: [String: (bucket: Int, actionCase: String, source: String, count: Int)] = [:]
            for event in events {
                let bucket = min(buckets - 1, max(0, Int((event.time - low) / (width > 0 ? width : 1))))
                let source = "\(event.source.file):\(event.source.line) \(event.source.function)"
                counts["\(bucket)\u{0}\(event.actionCase)\u{0}\(source)\u{0}\(event.source.column)\u{0}\(event.source.origin.rawValue)", default: (bucket, event.actionCase, source, 0)].count += 1
            }
            return LogActivity(start: low, bucketSeconds: width, buckets: buckets, top: top, counts: Array(counts.values))
        }
    }

    public func checkIntegrity() throws(EventLogError) -> IntegrityReport {
        var report = contents.withLock { contents in
            let seqs = contents.events.map(\.event.seq)
            var gaps: [ClosedRange<Int64>] = []
            for (seq, next) in zip(seqs, seqs.dropFirst()) where next > seq + 1 && gaps.count < 100 { gaps.append(seq + 1...next - 1) }
            let ids = contents.sessions.keys.sorted()
            return IntegrityReport(
                sqlite: ["ok"], eventCount: Int64(seqs.count), seqs: seqs.first.flatMap { first in seqs.last.map { first...$0 } }, gaps: gaps,
                sessionsWithoutSnapshot: ids.filter { id in !(contents.snapshots[id] ?? []).contains { ["initial", "retention"].contains($0.kind) } },
                sessionsWithWrongBounds: [], recordedGaps: contents.gaps,
                sessionsContinuingAfterGap: Array(Set(contents.gaps.filter { gap in
                    contents.events.contains { $0.event.session == gap.session && $0.event.seq > gap.afterSeq }
                }.map(\.session))).sorted(),
                eventsWithMissingPayload: []
            )
        }
        (report.unauthenticated, report.encryptedSessionsUnchecked) = try checkSealedValues()
        return report
    }

    // MARK: - RecordingLog

    package func beginSession<State: Encodable>(
        app: AppIdentity, codec: any PayloadCodec, initialState: State, info: String?, shapes: SessionShapes, at date: Date
    ) throws(EventLogError) -> LogSession {
        try transaction { contents throws(EventLogError) in
            try self.insertSession(&contents, app: app, codec: codec, state: initialState, info: info, shapes: shapes, at: date)
        }
    }

    package func write(session: LogSession, events: Int, _ encode: LogWrite.Encoding) throws(EventLogError) -> ClosedRange<Int64>? {
        let storage = try storage(for: session)
        return try transaction { contents throws(EventLogError) in
            let writes: [LogWrite]
            do { writes = try LogWrite.all(encode, codec: storage.codec) } catch let error as EventLogError { throw error } catch {
                throw .failed(path: path, reason: "\(error)")
            }
            var seqs: ClosedRange<Int64>?
            for write in writes {
                switch write {
                case let .event(event):
                    let seq = contents.lastSeq + 1
                    let payload: Data?
                    do { payload = try event.payload.map { try storage.stored($0, seq: seq, kind: .event) } } catch {
                        throw .failed(path: path, reason: "\(error)")
                    }
                    let source = ActionSource(
                        file: event.source.file, function: event.source.function, line: event.source.line, column: event.source.column,
                        info: event.info, origin: ActionSource.Origin(rawValue: event.source.origin) ?? .call
                    )
                    let logged = LoggedEvent(
                        seq: seq, session: session.id, time: event.time, actionCase: event.actionCase, payload: payload, source: source,
                        redaction: event.redaction, keyID: storage.keyID
                    )
                    contents.events.append(Row(event: logged, actionID: contents.intern(event.actionCase)))
                    contents.lastSeq = seq
                    seqs = (seqs?.lowerBound ?? seq)...seq
                case let .snapshot(time, state, placed, deflation):
                    let seq = placed ?? contents.lastSeq
                    try self.insertSnapshot(&contents, storage: storage, seq: seq, time: time, kind: "periodic", state: state)
                    let madeAhead = switch deflation {
                    case .notMade: false
                    case let .deflated(stored): (try? SnapshotCompression.decompressed(stored)) == state
                    case .notWorthIt: true
                    }
                    snapshotsWritten.withLock { $0.append((seq, madeAhead)) }
                }
            }
            if let seqs, var stored = contents.sessions[session.id] {
                stored.seqRange = (stored.seqRange?.lowerBound ?? seqs.lowerBound)...seqs.upperBound
                stored.eventCount += Int64(seqs.count)
                contents.sessions[session.id] = stored
            }
            return seqs
        }
    }

    package func recordGap<State: Encodable>(
        _ gap: LogGap, resumingWith app: AppIdentity, codec: any PayloadCodec, state: State, info: String?, shapes: SessionShapes, at date: Date
    ) throws(EventLogError) -> LogSession {
        try transaction { contents throws(EventLogError) in
            let resumed = try self.insertSession(&contents, app: app, codec: codec, state: state, info: info, shapes: shapes, at: date)
            var gap = gap
            gap.resumedSession = resumed.id
            contents.gaps.append(gap)
            contents.end(gap.session, as: .resumed, at: date)
            return resumed
        }
    }

    package func recordGap(_ gap: LogGap) throws(EventLogError) {
        try transaction { contents throws(EventLogError) in contents.gaps.append(gap) }
    }

    package func endSession(_ id: Int64, as kind: SessionEnding.Kind, at date: Date) throws(EventLogError) {
        try transaction { contents throws(EventLogError) in contents.end(id, as: kind, at: date) }
    }

    package func trim(to retention: Retention, now: Date, removingAtMost limit: Int) throws(EventLogError) -> (removed: Int, isComplete: Bool) { (0, true) }

    package func recorderFinished() {}

    // MARK: - Writing

    /// Runs `body` on a copy of the contents and commits the copy when it returns: a write
    /// that fails leaves nothing behind, symbols included.
    private func transaction<T>(_ body: (inout Contents) throws(EventLogError) -> T) throws(EventLogError) -> T {
        while isStalled.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.001) }
        let delay = writeDelay.load(ordering: .relaxed)
        if delay > 0 { Thread.sleep(forTimeInterval: Double(delay) / 1_000) }
        guard !isFailing.load(ordering: .acquiring) else { throw .failed(path: path, reason: "the store is unreachable") }
        return try contents.withLock { contents throws(EventLogError) in
            var copy = contents
            let result = try body(&copy)
            for codec in codecs.interning {
                let pending = codec.unpersistedSymbols()
                guard let last = pending.last?.id else { continue }
                copy.symbols += pending
                codec.markPersisted(upTo: last)
            }
            contents = copy
            return result
        }
    }

    private func insertSession<State: Encodable>(
        _ contents: inout Contents, app: AppIdentity, codec: any PayloadCodec, state: State, info: String?, shapes: SessionShapes, at date: Date
    ) throws(EventLogError) -> LogSession {
        let codec = codecs[codec.name] ?? codec
        let encoded: Data
        do { encoded = try codec.encode(state) } catch {
            throw .encodingFailed(path: path, seq: nil, actionCase: "initial state", reason: "\(error)")
        }
        let session = LogSession(
            id: contents.nextSession, app: app, codec: codec.name, startedAt: date.timeIntervalSince1970, baseSeq: contents.lastSeq, info: info,
            eventCount: 0, seqRange: nil, encryption: keys.current.map(SessionEncryption.new(with:)),
            actionFingerprint: shapes.action?.fingerprint, stateFingerprint: shapes.state?.fingerprint
        )
        contents.nextSession += 1
        contents.sessions[session.id] = session
        contents.shapes[session.id] = shapes
        try insertSnapshot(&contents, storage: try storage(for: session), seq: session.baseSeq, time: session.startedAt, kind: "initial", state: encoded)
        return session
    }

    private func insertSnapshot(
        _ contents: inout Contents, storage: SessionStorage, seq: Int64, time: Double, kind: String, state: Data
    ) throws(EventLogError) {
        let stored: Data
        do { stored = try storage.stored(state, seq: seq, kind: .snapshot) } catch { throw .failed(path: path, reason: "\(error)") }
        var snapshots = contents.snapshots[storage.session] ?? []
        // A later snapshot at the same seq replaces the earlier one, as a store's key does.
        snapshots.removeAll { $0.seq == seq }
        snapshots.append(LoggedSnapshot(session: storage.session, seq: seq, time: time, kind: kind, state: stored, keyID: storage.keyID))
        contents.snapshots[storage.session] = snapshots.sorted { $0.seq < $1.seq }
    }
}

extension MemoryLog.Contents {
    /// The id of a case path, added when new.
    fileprivate mutating func intern(_ name: String) -> Int {
        if let index = names.firstIndex(of: name) { return index + 1 }
        names.append(name)
        return names.count
    }

    /// The row of event `seq`, if the log holds it.
    fileprivate func row(at seq: Int64) -> MemoryLog.Row? {
        rows(in: seq...seq).first
    }

    /// The rows whose seqs are in `range`, by binary search over the seq order.
    fileprivate func rows(in range: ClosedRange<Int64>) -> ArraySlice<MemoryLog.Row> {
        func firstIndex(notBelow seq: Int64) -> Int {
            var (low, high) = (0, events.count)
            while low < high {
                let middle = (low + high) / 2
                if events[middle].event.seq < seq { low = middle + 1 } else { high = middle }
            }
            return low
        }
        let start = firstIndex(notBelow: range.lowerBound)
        let end = range.upperBound == .max ? events.count : firstIndex(notBelow: range.upperBound + 1)
        return events[start..<max(start, end)]
    }

    /// Marks session `id` ended at its last seq, unless it already is.
    fileprivate mutating func end(_ id: Int64, as kind: SessionEnding.Kind, at date: Date) {
        guard let session = sessions[id], session.ending == nil else { return }
        sessions[id]?.ending = SessionEnding(kind: kind, seq: session.lastSeq, time: date.timeIntervalSince1970)
    }
}
