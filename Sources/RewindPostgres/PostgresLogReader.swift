import Foundation
import NIOCore
import PostgresNIO
public import RewindCodingCore
public import RewindLog
import Synchronization

/// One log of a PostgreSQL store, read in place: a `LogReader`, so `Replayer`, every `rewind`
/// command and the inspector read it as they read the device's own file, with the same session
/// numbers, seqs and answers.
///
/// ```swift
/// let log = try await PostgresLogReader.open(try PostgresLocation(parsing: "postgres://rewind@db.internal/fleet?log=3f2a…"))
/// let state = try Replayer(log: log, reducer: Shop.reducer).state(at: 1234)
/// await log.close()
/// ```
///
/// A log is either the sessions pushed from one device log (numbered and seq'd as on the
/// device: the store's `origin_session` and `origin_seq`), or the sessions a service recorded
/// straight into the store under one install (the store's own numbers). Each call is one or a
/// few queries, a page at a time, answered by the store's indexes on a session's rows, so a
/// log of millions of events reads without copying it anywhere, and sessions pushed while it
/// is open are seen by the next call.
///
/// The reader answers synchronously, as a file does: it waits for the store on a queue of its
/// own, never on Swift's cooperative pool (see `SynchronousWait`). It starts on the
/// connection of the store that made it (``PostgresLog/reader(_:codecs:keys:)``) or on one of
/// its own (``open(_:codecs:keys:)``). When the server goes away — restarted, failed over to a
/// replica, the network cut — the next call connects again, once, and asks again: a long-lived
/// reader (`rewind serve`) outlives a restart; a server still down is a clean error naming
/// the store. Errors name ``path``, the store's location with the log, never the password.
///
/// What differs from a file, by nature: `statistics` counts the bytes the log's rows take in
/// the store (payloads and states as stored there, uncompressed by Rewind), and
/// `checkIntegrity` leaves the store's pages to PostgreSQL (its `sqlite` line reads `ok`)
/// and, for sessions recorded into the store, does not look for gaps between seqs: those
/// come from one sequence that every session of the store shares.
public final class PostgresLogReader: LogReader {
    public let path: String
    /// The store's location naming this log (`log=` or `install=`): ``path`` is its description.
    public let location: PostgresLocation
    public let codecs: PayloadCodecs
    public let keys: LogKeys
    /// The connection asked: the store's that made the reader, or a newer one after it closed.
    private let connection: Mutex<(store: PostgresLog, owned: Bool)>
    /// The log pushed from, or `nil` for sessions recorded into the store under ``install``.
    let origin: UUID?
    let install: String?
    /// Where the binary codec's symbols of the pushed log are; `nil` when it pushed none.
    let symbolSpace: Int64?
    private let wait = SynchronousWait(label: "RewindPostgres.PostgresLogReader")
    /// The store's session ids by the log's session numbers (they never change).
    let storeIDs = Mutex<[Int64: Int64]>([:])
    /// The store's case paths by id (`names[id - 1]`), grown when a page names a newer one.
    let actionNames = Mutex<[String?]>([])
    /// The highest symbol id the codecs were taught.
    private let symbolWatermark = Mutex<Int64>(0)

    init(
        store: PostgresLog, owned: Bool, origin: UUID?, install: String?, symbolSpace: Int64?, location: PostgresLocation,
        codecs: PayloadCodecs, keys: LogKeys
    ) {
        connection = Mutex((store, owned))
        (self.origin, self.install, self.symbolSpace) = (origin, install, symbolSpace)
        (self.location, path) = (location, location.description)
        // The log's own instances: a binary codec learns this log's symbols, no other's.
        (self.codecs, self.keys) = (codecs.fresh(), keys)
    }

    /// The column a session's number is in, and an event's or snapshot's seq: the device log's
    /// for a pushed log, the store's for sessions recorded into it.
    var numberColumn: String { origin == nil ? "id" : "origin_session" }
    var seqColumn: String { origin == nil ? "seq" : "origin_seq" }

    /// Connects to the store at `location` and opens the log it names (its `log=` or
    /// `install=`, or the store's only log) on a connection of the reader's own, which
    /// ``close()`` closes.
    ///
    /// - Throws: What `PostgresLog.open(_:mode:connectTimeout:)` (read-only) and
    ///   ``PostgresLog/reader(_:codecs:keys:)`` throw.
    public static func open(_ location: PostgresLocation, codecs: PayloadCodecs = .standard, keys: LogKeys = LogKeys()) async throws(EventLogError) -> PostgresLogReader {
        let store = try await PostgresLog.open(location, mode: .readOnly)
        do {
            let reader = try await store.reader(codecs: codecs, keys: keys)
            reader.connection.withLock { $0.owned = true }
            return reader
        } catch {
            await store.close()
            throw error
        }
    }

    /// Closes the reader's own connection (one it opened, or reconnected on); a store's that
    /// made it is the store's to close. Further reads connect again. Call it before the
    /// reader goes, as for a `PostgresLog`: postgres-nio requires connections to be closed.
    public func close() async {
        let (store, owned) = connection.withLock { $0 }
        if owned { await store.close() }
    }

    // MARK: - Running queries

    /// Runs `query` and waits for its rows; errors name the log and what was being read. When
    /// the connection has closed (the server restarted or went away), connects again once and
    /// runs it again.
    func rows(_ query: PostgresQuery, doing what: @autoclosure () -> String) throws(EventLogError) -> [PostgresRow] {
        try rows(start(query), doing: what())
    }

    /// A query sent ahead: the server answers it while the caller works (a replay folds one
    /// page while the next is read), and ``rows(_:doing:)-(StartedQuery,_)`` waits for it.
    struct StartedQuery: Sendable {
        fileprivate let store: PostgresLog
        fileprivate let query: PostgresQuery
        fileprivate let answer: SynchronousWait.Pending<[PostgresRow]>
    }

    /// Sends `query` on the current connection and returns without waiting for its rows.
    func start(_ query: PostgresQuery) -> StartedQuery {
        let store = connection.withLock { $0.store }
        return StartedQuery(store: store, query: query, answer: wait.start { try await store.rows(query) })
    }

    /// Waits for a query sent ahead, as ``rows(_:doing:)-(PostgresQuery,_)`` does: a closed
    /// connection is opened again once and the query run again on it.
    func rows(_ started: StartedQuery, doing what: @autoclosure () -> String) throws(EventLogError) -> [PostgresRow] {
        switch try answer(started, doing: what()) {
        case let .rows(rows): return rows
        case let .pastValueLimit(error): throw PostgresFailure.describe(error, at: location, doing: what())
        }
    }

    /// What a query sent ahead came to.
    enum Answer {
        case rows([PostgresRow])
        /// The server could not build a value the query asked for: past its limit of 1 GB on
        /// one value (SQLSTATE 54000), as a page of arrays sized from smaller payloads can be.
        /// Asking for less may succeed.
        case pastValueLimit(any Error)
    }

    /// ``rows(_:doing:)-(StartedQuery,_)``, telling a value past the server's limit apart from
    /// other errors.
    func answer(_ started: StartedQuery, doing what: @autoclosure () -> String) throws(EventLogError) -> Answer {
        do {
            return .rows(try started.answer.wait())
        } catch {
            if PostgresFailure.isPastValueLimit(error) { return .pastValueLimit(error) }
            guard started.store.connection.isClosed else { throw PostgresFailure.describe(error, at: location, doing: what()) }
        }
        let fresh = try reconnect(replacing: started.store)
        let query = started.query
        do {
            return .rows(try wait.run { try await fresh.rows(query) })
        } catch {
            if PostgresFailure.isPastValueLimit(error) { return .pastValueLimit(error) }
            throw PostgresFailure.describe(error, at: location, doing: what())
        }
    }

    /// A new connection in place of `closed` — or the one another call already made.
    private func reconnect(replacing closed: PostgresLog) throws(EventLogError) -> PostgresLog {
        if let current = connection.withLock({ $0.store === closed ? nil : $0.store }) { return current }
        let location = location
        let fresh: PostgresLog
        do {
            fresh = try wait.run { try await PostgresLog.open(location, mode: .readOnly) }
        } catch {
            throw PostgresFailure.describe(error, at: location, doing: "connect again")
        }
        let (kept, extra) = connection.withLock { current -> (PostgresLog, PostgresLog?) in
            guard current.store === closed else { return (current.store, fresh) }
            current = (fresh, true)
            return (fresh, nil)
        }
        if let extra { try? wait.run { await extra.close() } }
        return kept
    }

    /// Decodes rows, mapping a value of an unexpected type to a corrupt-log error that names the
    /// column and its type, never the value (a payload may hold what must not be shown).
    func decoding<T>(_ what: @autoclosure () -> String, _ body: () throws -> T) throws(EventLogError) -> T {
        do {
            return try body()
        } catch let error as EventLogError {
            throw error
        } catch let error as PostgresDecodingError {
            throw .corrupt(path: path, detail: "\(what()): column \(error.columnName) (\(error.postgresType)) does not read as \(error.targetType) (\(error.code))")
        } catch {
            throw .corrupt(path: path, detail: "\(what()): \(error)")
        }
    }

    /// The store's id of session `number`.
    ///
    /// - Throws: ``EventLogError/sessionNotFound(path:session:)``.
    func storeID(of number: Int64) throws(EventLogError) -> Int64 {
        if let id = storeIDs.withLock({ $0[number] }) { return id }
        let found = try rows("""
            SELECT s.id FROM rewind.sessions AS s WHERE \(unescaped: selection) AND s.\(unescaped: numberColumn) = \(number)
            """, doing: "find session \(number)")
        guard let row = found.first else { throw .sessionNotFound(path: path, session: number) }
        let id = try decoding("session \(number)") { try row.decode(Int64.self) }
        storeIDs.withLock { $0[number] = id }
        return id
    }

    /// The condition that picks the log's sessions out of the store's, on `rewind.sessions AS s`.
    /// Made of a UUID or a dollar-quoted install, never of anything else: PostgresQuery binds
    /// values, but a condition reused inside many statements is simplest as text.
    var selection: String {
        if let origin { return "s.origin = '\(origin.uuidString.lowercased())'::uuid" }
        return "s.origin IS NULL AND s.install_id IS NOT DISTINCT FROM " + (install.map(Self.literal) ?? "NULL")
    }

    /// `text` as a dollar-quoted SQL literal: nothing in it is special, whatever the server's
    /// `standard_conforming_strings`. The tag's name does not occur in the text, so the closing
    /// tag is the first place it can end (even a text ending in `$` and part of the tag).
    static func literal(_ text: String) -> String {
        var name = "rewind"
        while text.contains(name) { name += "x" }
        return "$\(name)$" + text + "$\(name)$"
    }

    /// Teaches the codecs the log's symbols stored since the last look: a push that added
    /// sessions may have added symbols.
    func refreshSymbols() throws(EventLogError) {
        guard symbolSpace != nil else { return }
        let known = symbolWatermark.withLock { $0 }
        let learned = try symbols(after: known)
        guard !learned.isEmpty else { return }
        do {
            for codec in codecs.interning { try codec.learn(learned) }
        } catch let damage as SymbolTableDamage {
            throw .corrupt(path: path, detail: damage.description)
        } catch {
            throw .corrupt(path: path, detail: "\(error)")
        }
        symbolWatermark.withLock { $0 = max($0, learned.last?.id ?? known) }
    }

    /// The store's id of session `number`, or `nil` when the log has no such session: reads of
    /// it find nothing, as a file's do.
    func storeIDIfAny(of number: Int64) throws(EventLogError) -> Int64? {
        do {
            return try storeID(of: number)
        } catch .sessionNotFound {
            return nil
        }
    }

    /// The log's symbols with ids above `known`, in order.
    func symbols(after known: Int64) throws(EventLogError) -> [CodecSymbol] {
        guard let symbolSpace else { return [] }
        let found = try rows("SELECT id, name FROM rewind.symbols WHERE space_id = \(symbolSpace) AND id > \(known) ORDER BY id", doing: "read the log's symbols")
        return try decoding("the log's symbols") {
            try found.map { row in let (id, name) = try row.decode((Int64, String).self); return CodecSymbol(id: id, name: name) }
        }
    }

    /// The store's case paths, indexed by id, holding at least `id` when the store does.
    func names(holding id: Int) throws(EventLogError) -> [String?] {
        let known = actionNames.withLock { $0 }
        if id <= known.count { return known }
        let found = try rows("SELECT id, name FROM rewind.actions WHERE id > \(known.count) ORDER BY id", doing: "read the case paths")
        var names = known
        try decoding("the case paths") {
            for row in found {
                let (id, name) = try row.decode((Int64, String).self)
                // Ids come from an identity column: never below 1, and dense but for rollbacks. At
                // most a million unused ids in all, however the rows skip: a damaged store must
                // not become an allocation.
                guard id > names.count, id <= known.count + found.count + 1_000_000 else { continue }
                names += [String?](repeating: nil, count: Int(id) - names.count - 1) + [name]
            }
        }
        actionNames.withLock { if names.count > $0.count { $0 = names } }
        return names
    }
}
