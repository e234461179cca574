import Foundation
import Rewind
import RewindLog
import RewindTestSupport
import Testing

/// Invariants checked in the field, on the writer thread's own fold of the session: the first
/// action after which one fails seals one report a session.
@Suite("Invariant reports")
struct InvariantReportTests {
    static let app = AppIdentity(id: "com.example.balance")
    /// A balance moved by each action's amount.
    static let reducer = Reducer<Int, Int> { balance, amount in balance += amount }
    static let nonNegative = Invariant<Int>(name: "non-negative-balance", description: "the balance never goes below zero") { $0 >= 0 }

    static func recorder(at path: String, key: ReportKey, after: Int = 2, snapshotInterval: Int = 1_000) throws -> (Recorder<Int, Int>, Store<Int, Int>) {
        var configuration = RecorderConfiguration<Int, Int>()
        configuration.reports = ReportOptions(key: key)
        configuration.reports?.eventsAfterTrigger = after
        configuration.snapshotInterval = snapshotInterval
        configuration.snapshotBudget = .infinity
        configuration.invariants = FieldInvariants(reducer: reducer, [nonNegative])
        let recorder = Recorder<Int, Int>(log: try EventLog(path: path), app: app, configuration: configuration)
        return (recorder, Store(initialState: 10, reducer: reducer, middleware: recorder.middleware))
    }

    @Test("the first action that breaks an invariant seals one report naming it, across snapshots; a later break makes none", arguments: [1_000, 3])
    func firstBreak(snapshotInterval: Int) async throws {
        let folder = try TemporaryDirectory()
        let keys = try ReportKey.generate(id: "team")
        let (recorder, store) = try Self.recorder(at: folder.file("balance.rewind"), key: keys.publicKey, snapshotInterval: snapshotInterval)
        // 10, then +1 seven times (17), then -20 at seq 9: -3.
        for _ in 0..<7 { store.dispatch(1) }
        store.dispatch(-20)
        try await recorder.flush()
        #expect(recorder.outbox?.reports().isEmpty == true)  // the 2 actions after it are still to come
        store.dispatch(30)
        store.dispatch(-100)  // breaks it again: the session has its report
        store.dispatch(100)
        try await recorder.flush()
        let reports = try #require(recorder.outbox?.reports())
        try #require(reports.count == 1)
        let report = try FieldReport(contentsOf: reports[0].path)
        #expect(report.header.reason == ReportReason(kind: .invariant, name: "non-negative-balance"))
        let log = try EventLog(path: folder.file("balance.rewind"), mode: .readOnly)
        #expect(report.header.triggerSource == (try log.event(at: 8)).source)
        let (opened, details) = try EventLog.openingReport(at: reports[0].path, keys: LogKeys(others: [keys.privateKey]))
        #expect(details.triggerSeq == 8 && details.lastSeq == 10)
        #expect(try opened.restoredState(app: Self.app, reducer: Self.reducer) == -73)
        try await recorder.close()
        #expect(recorder.outbox?.reports().count == 1)
    }

    @Test("each session folds from its own start: after a suspension a break in the new session is reported too")
    func newSessionAfterSuspension() async throws {
        let folder = try TemporaryDirectory()
        let keys = try ReportKey.generate(id: "team")
        let (recorder, store) = try Self.recorder(at: folder.file("balance.rewind"), key: keys.publicKey, after: 0)
        store.dispatch(-5)  // 5
        try await recorder.suspend()
        recorder.resume()
        store.dispatch(-4)  // 1: holds, folded from the state the new session begins from (5)
        store.dispatch(-2)  // -1: breaks
        try await recorder.close()
        let reports = try #require(recorder.outbox?.reports())
        try #require(reports.count == 1)
        let details = try FieldReport(contentsOf: reports[0].path).open(with: LogKeys(others: [keys.privateKey])).details
        #expect(details.reason == ReportReason(kind: .invariant, name: "non-negative-balance"))
        let log = try EventLog(path: folder.file("balance.rewind"), mode: .readOnly)
        let trigger = try log.event(at: try #require(details.triggerSeq))
        #expect(try trigger.session == log.sessions().last?.id)
        #expect(trigger.payloadText == "-2")
    }

    @Test("without reports, or without invariants, nothing is folded or sealed")
    func offByDefault() async throws {
        let folder = try TemporaryDirectory()
        var configuration = RecorderConfiguration<Int, Int>()
        configuration.invariants = FieldInvariants(reducer: Self.reducer, [Self.nonNegative])
        let recorder = Recorder<Int, Int>(log: try EventLog(path: folder.file("balance.rewind")), app: Self.app, configuration: configuration)
        let store = Store(initialState: 0, reducer: Self.reducer, middleware: recorder.middleware)
        store.dispatch(-1)
        try await recorder.close()
        #expect(recorder.outbox == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.file("balance.rewind-reports")))
    }
}
