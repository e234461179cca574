import Foundation
import Rewind
import RewindLog
import RewindTestSupport
import Testing

/// Actions the app marks as errors, checked on the writer thread: the first of a session seals
/// one report, of the window before it and the actions after it.
@Suite("Error action reports")
struct ErrorActionReportTests {
    static let app = AppIdentity(id: "com.example.notes")
    static let reducer = Reducer<[String], String> { notes, note in notes.append(note) }

    /// A recorder of notes that marks every note starting "error" as an error action.
    static func recorder(at path: String, key: ReportKey, after: Int) throws -> (Recorder<[String], String>, Store<[String], String>) {
        var configuration = RecorderConfiguration<[String], String>()
        configuration.reports = ReportOptions(key: key)
        configuration.reports?.eventsAfterTrigger = after
        configuration.errorActions = { $0.hasPrefix("error") }
        let recorder = Recorder<[String], String>(log: try EventLog(path: path), app: app, configuration: configuration)
        return (recorder, Store(initialState: [], reducer: reducer, middleware: recorder.middleware))
    }

    @Test("the first error action seals one report: its trigger, then the actions after it; a second in the session makes none")
    func firstErrorAction() async throws {
        let folder = try TemporaryDirectory()
        let keys = try ReportKey.generate(id: "team")
        let (recorder, store) = try Self.recorder(at: folder.file("notes.rewind"), key: keys.publicKey, after: 3)
        for index in 0..<10 { store.dispatch("note \(index)") }
        store.dispatch("error: payment failed")
        try await recorder.flush()
        // Not yet: the 3 actions after it are still to come.
        #expect(recorder.outbox?.reports().isEmpty == true)
        for index in 0..<5 { store.dispatch("after \(index)") }
        store.dispatch("error: again")
        try await recorder.flush()
        let reports = try #require(recorder.outbox?.reports())
        try #require(reports.count == 1)
        let header = try FieldReport(contentsOf: reports[0].path).header
        let log = try EventLog(path: folder.file("notes.rewind"), mode: .readOnly)
        let trigger = try log.event(at: 11)
        #expect(header.reason == ReportReason(kind: .errorAction, name: trigger.actionCase) && header.triggerSource == trigger.source)
        let (opened, details) = try EventLog.openingReport(at: reports[0].path, keys: LogKeys(others: [keys.privateKey]))
        #expect(details.triggerSeq == 11 && details.lastSeq == 14)
        #expect(try opened.restoredState(app: Self.app, reducer: Self.reducer) == Array(store.state.prefix(14)))
        try await recorder.close()
        #expect(recorder.outbox?.reports().count == 1)
    }

    @Test("a session ending before the actions after it come seals the report with those there are")
    func sessionEndsFirst() async throws {
        let folder = try TemporaryDirectory()
        let keys = try ReportKey.generate(id: "team")
        let (recorder, store) = try Self.recorder(at: folder.file("notes.rewind"), key: keys.publicKey, after: 20)
        store.dispatch("note")
        store.dispatch("error: lost connection")
        store.dispatch("retry")
        try await recorder.close()
        let reports = try #require(recorder.outbox?.reports())
        try #require(reports.count == 1)
        let details = try FieldReport(contentsOf: reports[0].path).open(with: LogKeys(others: [keys.privateKey])).details
        #expect(details.triggerSeq == 2 && details.lastSeq == 3 && details.reason.kind == .errorAction)
    }
}
