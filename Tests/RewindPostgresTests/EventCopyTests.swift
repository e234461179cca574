import Foundation
import PostgresNIO
import RewindLog
@testable import RewindPostgres
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Events go into a store by `COPY` in its text format, formatted by hand (`EventCopy`): every
/// value must arrive as it was — text with `COPY`'s own escape characters in it, empty text
/// that is not missing, any bytes, doubles to the bit, integers at their edges — and a copy on
/// a server that stops answering must end, as every other statement does.
@Suite("PostgreSQL store: events by COPY", .enabled(if: PostgresTestServer.enabled))
struct EventCopyTests {
    struct Row: Equatable, Sendable {
        var seq: Int64
        var originSeq: Int64?
        var time: Double
        var payload: Data?
        var info: String?
        var redaction: String?
        var cause: Int64?
        var root: Int64?

        static func == (a: Row, b: Row) -> Bool {
            // Times by their bits: -0.0, NaN and the last digit all count.
            a.seq == b.seq && a.originSeq == b.originSeq && a.time.bitPattern == b.time.bitPattern && a.payload == b.payload
                && a.info == b.info && a.redaction == b.redaction && a.cause == b.cause && a.root == b.root
        }
    }

    static let texts: [String?] = [
        nil, "", "\\", "\t", "\n", "\r", "\\N", "N", "a\tb\\nc\r\nd", "é🙂 ünïcode", "\\\\x00", " trailing space ", String(repeating: "\\\t", count: 500),
    ]
    static let times: [Double] = [
        0, -0.0, 1_764_000_000.123_456_7, .pi, -1e-300, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, .infinity, -.infinity, .nan, 0.1 + 0.2, 1e22, .leastNonzeroMagnitude * 3,
    ]
    static let integers: [Int64?] = [nil, 0, 1, -1, .max, .min, 1_000_000_007, -9_999]

    static func rows() -> [Row] {
        var rows: [Row] = []
        var generator = SystemRandomNumberGenerator()
        // More than one chunk of a copy (1,000 rows).
        for index in 0..<2_500 {
            let payload: Data? = switch index % 5 {
            case 0: nil
            case 1: Data()
            case 2: Data((0...255).map { UInt8($0) })
            case 3: Data((0..<Int.random(in: 1...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            default: Data("{\"a\":\"b\\\\c\\t\"}".utf8)
            }
            rows.append(Row(
                seq: index == 0 ? .max : index == 1 ? .min : Int64(index),
                originSeq: index < integers.count ? integers[index] : Int64(index) * 7_919,
                time: times[index % times.count],
                payload: payload,
                info: texts[index % texts.count],
                redaction: texts[(index + 5) % texts.count],
                cause: integers[(index + 3) % integers.count],
                root: integers[(index + 1) % integers.count]
            ))
        }
        return rows
    }

    @Test("every value arrives as it was: COPY's escape characters in text, empty text, any bytes, doubles to the bit, integers at their edges")
    func roundTrip() async throws {
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            let rows = Self.rows()
            try await store.transaction {
                try await store.copy(rows: rows.count) { index, copy in
                    let row = rows[index]
                    copy.append(
                        session: 7, seq: row.seq, originSeq: row.originSeq, time: row.time, action: 1, payload: row.payload, source: 1,
                        info: row.info, redaction: row.redaction, cause: row.cause, root: row.root
                    )
                }
            }
            let stored = try await store.rows("""
                SELECT seq, origin_seq, time, payload, info, redaction, cause_distance, root_distance FROM rewind.events WHERE session_id = 7
                """).map { row in
                let (seq, originSeq, time, payload, info, redaction, cause, root) = try row.decode(
                    (Int64, Int64?, Double, Data?, String?, String?, Int64?, Int64?).self
                )
                return Row(seq: seq, originSeq: originSeq, time: time, payload: payload, info: info, redaction: redaction, cause: cause, root: root)
            }
            #expect(stored.count == rows.count)
            let bySeq = Dictionary(uniqueKeysWithValues: stored.map { ($0.seq, $0) })
            for row in rows {
                #expect(bySeq[row.seq] == row, "seq \(row.seq)")
            }
        }
    }

    @Test("a copy the server rejects fails its transaction, leaving nothing; the connection goes on")
    func rejected() async throws {
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            let seqs: [Int64] = [1, 2, 2]
            let copy: @Sendable (Int, inout EventCopy) -> Void = { index, copy in
                copy.append(session: 3, seq: seqs[index], originSeq: nil, time: 1, action: 1, payload: nil, source: 1, info: nil, redaction: nil, cause: nil, root: nil)
            }
            await #expect(throws: (any Error).self) { try await store.transaction { try await store.copy(rows: seqs.count, copy) } }
            #expect(try await store.single(Int64.self, "SELECT count(*) FROM rewind.events") == 0)
            #expect(try await store.single(Int.self, "SELECT 41 + 1") == 42)
            #expect(store.inFlight.count == 0)
        }
    }

    @Test("a backend stopped in the middle of a copy: the copy fails at the query timeout, the connection is closed; a closed connection fails a copy at once")
    func stoppedMidCopy() async throws {
        try await PostgresTestServer.withDatabase { location in
            // 5 s: at 2 s, a statement before the stop, slowed by the suite's load, timed out too.
            let store = try await PostgresLog.open(location, queryTimeout: .seconds(5))
            let backend = try await store.single(Int32.self, "SELECT pg_backend_pid()")
            // Each row slowed on the server, so that the copy is still going when it is stopped.
            _ = try await PostgresTestServer.strings(location, """
                CREATE FUNCTION public.rewind_test_slow_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.005); RETURN NEW; END $$
                """)
            _ = try await PostgresTestServer.strings(location, """
                CREATE TRIGGER rewind_test_slow_row BEFORE INSERT ON rewind.events FOR EACH ROW EXECUTE FUNCTION public.rewind_test_slow_row()
                """)
            let copy: @Sendable (Int, inout EventCopy) -> Void = { index, copy in
                copy.append(session: 1, seq: Int64(index + 1), originSeq: nil, time: 1, action: 1, payload: Data([1, 2, 3]), source: 1, info: nil, redaction: nil, cause: nil, root: nil)
            }
            let watcher = try await PostgresLog.open(location, mode: .readOnly)
            // Stopped once the server says the copy is under way. The watcher runs on its
            // connection's event loop, not Swift's pool, whose two threads the suite's other tests
            // can hold for seconds: starved there, it once missed the copy's whole window and then
            // waited for a copy that had ended, holding CI until its limit. It stops looking
            // when cancelled (the copy has ended): `nil`, the stop never made.
            let stopper = Task(executorPreference: ConnectionLoopExecutor(watcher.connection.eventLoop)) { () -> Int32? in
                while try await watcher.single(Int64.self, "SELECT count(*) FROM pg_stat_progress_copy WHERE pid = \(backend)") == 0 {
                    guard (try? await Task.sleep(for: .milliseconds(5))) != nil else { return nil }
                }
                return kill(pid_t(backend), SIGSTOP)
            }
            defer { kill(pid_t(backend), SIGCONT) }
            let clock = ContinuousClock()
            let start = clock.now
            await #expect(throws: (any Error).self) { try await store.transaction { try await store.copy(rows: 2_000, copy) } }
            stopper.cancel()
            let stopped = try await stopper.value
            try #require(stopped != nil, "the copy ended before the watcher saw it under way: nothing stopped it")
            #expect(stopped == 0, "the backend was stopped")
            let waited = clock.now - start
            // The timeout and the client's second of grace, on a machine the suite is loading.
            #expect(waited >= .seconds(5) && waited < .seconds(30), "waited \(waited)")
            #expect(store.connection.isClosed)
            #expect(store.inFlight.count == 0)
            // A later copy fails at once: the connection closed before it reached postgres-nio,
            // which would wait for it forever — until the query timeout here, whose error says
            // so. Told by the error, not by a time the suite's load could stretch.
            let refused = await #expect(throws: EventLogError.self) { try await store.copy(rows: 2_000, copy) }
            #expect(refused.map { !"\($0)".contains("query timeout") } == true, "\(refused.map { "\($0)" } ?? "")")
            kill(pid_t(backend), SIGCONT)
            await watcher.close()
        }
    }
}
