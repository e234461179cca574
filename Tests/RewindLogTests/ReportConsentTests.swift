import Foundation
import Rewind
import RewindLog
import RewindTestSupport
import Testing

/// The user's consent, as the outbox keeps it: reports sealed while consent is asked for wait,
/// held, out of what an uploader sends, until the app grants or declines them.
@Suite("Report consent")
struct ReportConsentTests {
    static let app = AppIdentity(id: "com.example.notes")
    static let reducer = Reducer<[String], String> { notes, note in notes.append(note) }

    static func recorder(at path: String, key: ReportKey) throws -> (Recorder<[String], String>, Store<[String], String>) {
        var configuration = RecorderConfiguration<[String], String>()
        configuration.reports = ReportOptions(key: key)
        configuration.reports?.consent = .askFirst
        configuration.reports?.eventsAfterTrigger = 0
        configuration.errorActions = { $0.hasPrefix("error") }
        let recorder = Recorder<[String], String>(log: try EventLog(path: path), app: app, configuration: configuration)
        return (recorder, Store(initialState: [], reducer: reducer, middleware: recorder.middleware))
    }

    @Test("asked first: a report is held, out of reports(), across a relaunch, until granted; then it opens")
    func heldUntilGranted() async throws {
        let folder = try TemporaryDirectory()
        let keys = try ReportKey.generate(id: "team")
        let path = folder.file("notes.rewind")
        let (recorder, store) = try Self.recorder(at: path, key: keys.publicKey)
        store.dispatch("note")
        store.dispatch("error: sync failed")
        try await recorder.close()
        // What an uploader would send: nothing yet. The app's consent screen lists the held one.
        let outbox = ReportOutbox(besideLog: path)  // as a later launch opens it
        #expect(outbox.reports().isEmpty)
        let held = outbox.heldReports()
        try #require(held.count == 1)
        let granted = try outbox.grant(held[0])
        #expect(outbox.reports() == [granted] && outbox.heldReports().isEmpty)
        let details = try FieldReport(contentsOf: granted.path).open(with: LogKeys(others: [keys.privateKey])).details
        #expect(details.reason.kind == .errorAction && details.triggerSeq == 2)
        // Granting again, or something that is not a held report of this outbox, is an error.
        #expect(throws: EventLogError.self) { try outbox.grant(held[0]) }
        #expect(throws: EventLogError.self) { try outbox.grant(granted) }
        #expect(throws: EventLogError.self) { try outbox.grant(URL(fileURLWithPath: folder.file("elsewhere.rwreport.held"))) }
    }

    @Test("declined reports are deleted, uncounted; grantAll readies the rest; a report the user asked for is ready at once")
    func declineAndAsked() async throws {
        let folder = try TemporaryDirectory()
        let keys = try ReportKey.generate(id: "team")
        let path = folder.file("notes.rewind")
        let outbox = ReportOutbox(besideLog: path)
        for index in 0..<3 { try outbox.add(Data("report \(index)".utf8), held: true, now: Date(timeIntervalSinceNow: Double(index))) }
        outbox.decline(outbox.heldReports()[0])
        #expect(outbox.heldReports().count == 2 && outbox.dropped == 0)
        // Only its own reports: a file elsewhere, or not a report, is left alone.
        let elsewhere = URL(fileURLWithPath: folder.file("keep.rwreport"))
        let notReport = outbox.folder.appendingPathComponent("notes.txt")
        for file in [elsewhere, notReport] {
            try Data("keep".utf8).write(to: file)
            outbox.decline(file)
            outbox.delivered(file)
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
        #expect(try outbox.grantAll().count == 2)
        #expect(outbox.reports().count == 2 && outbox.heldReports().isEmpty)
        // "Report a problem": the app asks after the user agreed, so it is ready.
        let (recorder, store) = try Self.recorder(at: path, key: keys.publicKey)
        store.dispatch("note")
        let asked = try await recorder.report(note: "the list is empty")
        #expect(outbox.reports().contains(asked) && outbox.heldReports().isEmpty)
        try await recorder.close()
    }

    @Test("held reports count toward the bounds: the oldest go first, counted, held or not")
    func bounds() throws {
        let folder = try TemporaryDirectory()
        var outbox = ReportOutbox(folder: URL(fileURLWithPath: folder.file("reports")))
        outbox.maxCount = 2
        let start = Date()
        try outbox.add(Data("a".utf8), held: true, now: start)
        try outbox.add(Data("b".utf8), now: start.addingTimeInterval(1))
        try outbox.add(Data("c".utf8), held: true, now: start.addingTimeInterval(2))
        #expect(outbox.dropped == 1)
        #expect(try outbox.reports().map { try Data(contentsOf: $0) } == [Data("b".utf8)])
        #expect(try outbox.heldReports().map { try Data(contentsOf: $0) } == [Data("c".utf8)])
    }
}
