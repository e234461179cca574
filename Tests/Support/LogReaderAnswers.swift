import Foundation
import Rewind
import RewindExamples
public import RewindLog

/// The store conformance suite's reading half: every read of `LogReader`, asked of a log, as
/// lines to compare with the answers of another store holding the same sessions — sessions,
/// pages and filters, raw walks, snapshots, shapes, statistics, activity, integrity, and the
/// errors and edges of odd arguments. The SQLite file is the reference; the PostgreSQL store
/// (pushed from it) and the in-memory store (`MemoryLog`, copied from it) must answer the same.
public enum LogReaderAnswers {
    /// The reference log: three sessions of the todo app (120, 0 and 75 actions) in the binary
    /// codec, with snapshots every 25 events.
    public static func deviceLog(in folder: TemporaryDirectory) async throws -> EventLog {
        let log = try EventLog(path: folder.file("device.rewind"))
        var configuration = RecorderConfiguration<TodoState, TodoAction>()
        configuration.codec = BinaryPayloadCodec()
        configuration.snapshotInterval = 25
        configuration.snapshotBudget = .infinity
        for (seed, actions) in [(1, 120), (2, 0), (3, 75)] {
            _ = try await recordSession(
                into: log, app: AppIdentity(id: "com.example.todo", version: "2.\(seed)"), initialState: TodoState(),
                reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: UInt64(seed)), actions: actions,
                configuration: configuration
            )
        }
        return log
    }

    /// Every read of the protocol, asked of a log and of its copy in a store: what each answers
    /// (sizes aside, which are the store's), as lines to compare.
    public static func of(_ log: any LogReader) throws -> [String] {
        var lines = [try log.sessions().description, "\(try log.seqRange().debugDescription)", "\(try log.gaps())"]
        guard let range = try log.seqRange() else { throw EventLogError.failed(path: log.path, reason: "the answers need a log with events") }
        let probes = [range.lowerBound - 1, range.lowerBound, range.lowerBound + 7, (range.lowerBound + range.upperBound) / 2, range.upperBound, range.upperBound + 1, .max]
        for session in try log.sessions() {
            lines.append("\(session.id): \(try log.snapshotIndex(session: session.id))")
            lines.append("\(session.id): \(try log.shapes(session: session.id))")
            lines.append("\(session.id): \(try log.gaps(session: session.id))")
            for seq in probes + [session.baseSeq] {
                lines.append("\(session.id) @ \(seq): \(String(describing: try log.snapshot(session: session.id, atOrBefore: seq)))")
            }
            var raw: [String] = []
            _ = try log.forEachRawEvent(session: session.id, from: range.lowerBound, through: range.upperBound) { event in
                raw.append("\(event.seq) \(event.actionCase) \(event.payload.map { Data($0).base64EncodedString() } ?? "-") \(event.redaction ?? "")")
                return raw.count < 50 ? .continue : .stop
            }
            lines += raw
            lines.append("stats \(session.id): " + counts(try log.statistics(session: session.id)))
            lines.append("activity \(session.id): \(String(describing: try log.activity(session: session.id, buckets: 7, top: 3)))")
        }
        for seq in probes {
            lines.append("containing \(seq): " + ((try? log.session(containing: seq).id).map(String.init) ?? "\(Result { try log.event(at: seq) })"))
        }
        let event = try log.event(at: range.lowerBound + 3)
        let filters = [
            EventFilter(), EventFilter(seqs: range.lowerBound + 5...range.lowerBound + 60), EventFilter(session: 3), EventFilter(actionCase: "add*"),
            EventFilter(actionCase: "toggle"), EventFilter(actionCase: "*e?"), EventFilter(file: "Todo"), EventFilter(line: Int(event.source.line)),
            EventFilter(times: event.time...event.time + 0.5), EventFilter(session: 99), EventFilter(seqs: .max - 1 ... .max), EventFilter(limit: 5),
        ]
        for filter in filters {
            var cursor = log.events(filter, pageSize: 17)
            lines.append("\(filter): \(try cursor.collect())")
            lines.append("\(filter) before: \(try log.events(filter, before: range.upperBound - 10, count: 9))")
        }
        lines.append("stats: " + counts(try log.statistics()))
        lines.append("activity: \(String(describing: try log.activity(session: nil, buckets: 12, top: 4)))")
        // Summaries of a seq range and a time window (`stats --from/--since`), open-ended too.
        let windows: [(session: Int64?, seqs: ClosedRange<Int64>?, times: ClosedRange<Double>?)] = [
            (nil, range.lowerBound + 5...range.lowerBound + 60, nil), (3, nil, event.time...event.time + 0.5),
            (nil, nil, event.time ... .infinity), (nil, nil, -.infinity...event.time), (nil, .max - 1 ... .max, nil),
            (2, range.lowerBound...range.upperBound, event.time - 10...event.time + 1), (99, nil, event.time...event.time + 1),
        ]
        for window in windows {
            lines.append("stats of \(window): " + counts(try log.statistics(session: window.session, seqs: window.seqs, times: window.times)))
            lines.append("activity of \(window): \(String(describing: try log.activity(session: window.session, seqs: window.seqs, times: window.times, buckets: 5, top: 3)))")
        }
        var integrity = try log.checkIntegrity()
        integrity.sqlite = []
        lines.append("integrity: \(integrity)")
        lines.append("sessions 99: \(Result { try log.session(99) })")
        lines += oddAnswers(log)
        return lines
    }

    /// What the reads answer to odd arguments: the edges of Int64, sessions that do not exist,
    /// empty and reversed ranges, counts of 0 and below. Each answer or error, as text.
    public static func oddAnswers(_ log: any LogReader) -> [String] {
        func answer(_ label: String, _ body: () throws -> Any) -> String {
            do { return "\(label): \(try body())" } catch { return "\(label): error \(error)" }
        }
        var lines: [String] = []
        for seq: Int64 in [.min, -1, 0, .max] {
            lines.append(answer("event at \(seq)") { try log.event(at: seq) })
            lines.append(answer("session containing \(seq)") { try log.session(containing: seq) })
            lines.append(answer("snapshot of 1 at \(seq)") { try log.snapshot(session: 1, atOrBefore: seq) as Any })
            lines.append(answer("page after \(seq)") { try log.eventPage(EventFilter(), after: seq, count: 3, newestFirst: false) })
            lines.append(answer("page before \(seq)") { try log.events(EventFilter(), before: seq, count: 3) })
        }
        for session: Int64 in [.min, -1, 0, 99, .max] {
            lines.append(answer("session \(session)") { try log.session(session) })
            lines.append(answer("snapshot of \(session)") { try log.snapshot(session: session) as Any })
            lines.append(answer("snapshot index of \(session)") { try log.snapshotIndex(session: session) })
            lines.append(answer("shapes of \(session)") { try log.shapes(session: session) })
            lines.append(answer("gaps of \(session)") { try log.gaps(session: session) })
            lines.append(answer("statistics of \(session)") { counts(try log.statistics(session: session)) })
            lines.append(answer("activity of \(session)") { try log.activity(session: session, buckets: 3, top: 2) as Any })
            lines.append(answer("events of \(session)") { var cursor = log.events(EventFilter(session: session)); return try cursor.collect().count })
            lines.append(answer("raw walk of \(session)") {
                var seen = 0
                let stopped = try log.forEachRawEvent(session: session, from: .min, through: .max) { _ in seen += 1; return .continue }
                return "\(stopped) \(seen)"
            })
        }
        for (first, last): (Int64, Int64) in [(10, 5), (.max, .max), (.min, .min), (.max - 1, .max)] {
            lines.append(answer("raw walk \(first)...\(last)") {
                var seen = 0
                let stopped = try log.forEachRawEvent(session: 1, from: first, through: last) { _ in seen += 1; return .continue }
                return "\(stopped) \(seen)"
            })
        }
        for count in [0, -1, Int.max] {
            lines.append(answer("page of \(count)") { try log.eventPage(EventFilter(), after: .min, count: count, newestFirst: false).count })
            lines.append(answer("page of \(count) before") { try log.events(EventFilter(), before: .max, count: count).count })
        }
        for (buckets, top) in [(0, 0), (-5, -5), (Int.max, Int.max), (1, 1)] {
            lines.append(answer("activity \(buckets) \(top)") { try log.activity(session: nil, buckets: buckets, top: top) as Any })
        }
        return lines
    }

    /// Statistics without sizes.
    public static func counts(_ stats: LogStatistics) -> String {
        "\(stats.events) \(stats.sessions) \(stats.snapshots) \(String(describing: stats.timeSpan)) \(stats.actionCases) \(stats.sources)"
    }
}
