import Foundation
import Rewind
import RewindLog
@testable import RewindLogCore
import RewindTestSupport
import Testing

/// What leaves the device, before it leaves: the secret scan finds the common shapes of secrets
/// in what a report would reveal and shows them masked; the app previews a report for consent
/// and seals one when the user asks.
@Suite("Report privacy")
struct ReportPrivacyTests {
    static let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

    @Test("each shape is found in JSON-escaped text, masked; a number failing Luhn is not a card")
    func scanShapes() throws {
        let payload = #"{"note":"Authorization: Bearer abcdefghijklmnopqrstuvwx","jwt":"\#(Self.jwt)","card":"4242 4242 4242 4242","notCard":"4242 4242 4242 4241","mail":"ada@example.com"}"#
        let line = try JSONSerialization.data(withJSONObject: ["type": "event", "seq": 7, "payload": payload])
        let findings = SecretScan.findings(in: line)
        #expect(findings.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.bearerToken, .cardNumber, .email, .jwt])
        #expect(findings.allSatisfy { $0.seq == 7 && $0.line == "event" })
        for secret in ["abcdefghijklmnopqrstuvwx", Self.jwt, "4242 4242 4242 4242", "ada@example.com"] {
            #expect(!findings.contains { $0.sample.contains(secret) || $0.description.contains(secret) }, "\(secret)")
        }
        #expect(findings.first { $0.kind == .cardNumber }?.sample == "…4242 (16 digits)")
        #expect(SecretScan.luhn([4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2]) && !SecretScan.luhn([4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 1]))
        // A binary payload (base64 in the content) is scanned as its bytes; a planted string anywhere.
        let binary = try JSONSerialization.data(withJSONObject: [
            "type": "event", "seq": 8, "encoding": "base64", "payload": Data("\u{1}\u{5}ada@example.com\u{0}tok_PLANTED".utf8).base64EncodedString(),
        ])
        #expect(SecretScan.findings(in: binary, planted: ["tok_PLANTED"]).map(\.kind) == [.planted, .email])
        #expect(SecretScan.findings(in: Data(#"{"type":"event","seq":1,"payload":"{\"count\":12345}"}"#.utf8)).isEmpty)
        // Edges: a card number inside a longer number, before a decimal point, or after one; a
        // time stamp; "bearer" with no token; an address ending a sentence.
        #expect(SecretScan.cardNumbers(in: Array("14242424242424242 4242424242424242.5 0.4242424242424242 1795824891.6417813".utf8)).isEmpty)
        #expect(SecretScan.cardNumbers(in: Array("card 4242-4242-4242-4242, and 4000 0566 5566 5556".utf8)) == ["4242424242424242", "4000056655665556"])
        // Digits glued to letters are a word or hex: a UUID whose first groups are all digits.
        #expect(SecretScan.cardNumbers(in: Array("\"logID\":\"42424242-4242-4242-4a42-abcdefabcdef\" x4242424242424242 4242424242424242y".utf8)).isEmpty)
        #expect(SecretScan.bearerTokens(in: Array("the bearer of bad news; Bearer short".utf8)).isEmpty)
        #expect(SecretScan.emailAddresses(in: Array("write to ada@example.com. Or @handle, or a@b, or x@y.z1".utf8)) == ["ada@example.com"])
        #expect(SecretScan.jsonWebTokens(in: Array("xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefgh \(Self.jwt)".utf8)) == [Self.jwt])
    }

    /// A recorder of notes (each action appends its text to the state) with reports on.
    static func notesRecorder(at path: String, key: ReportKey?) throws -> (Recorder<[String], String>, Store<[String], String>) {
        var configuration = RecorderConfiguration<[String], String>()
        if let key { configuration.reports = ReportOptions(key: key) }
        let recorder = Recorder<[String], String>(log: try EventLog(path: path), app: AppIdentity(id: "com.example.notes"), configuration: configuration)
        let store = Store(initialState: [], reducer: Reducer<[String], String> { notes, note in notes.append(note) }, middleware: recorder.middleware)
        return (recorder, store)
    }

    @Test("report(note:) seals everything dispatched before it into the outbox; it replays to the store's state")
    func requestedReport() async throws {
        let folder = try TemporaryDirectory()
        let keys = try ReportKey.generate(id: "team")
        let (recorder, store) = try Self.notesRecorder(at: folder.file("notes.rewind"), key: keys.publicKey)
        for index in 0..<40 { store.dispatch("note \(index)") }
        let url = try await recorder.report(note: "the list looks wrong")
        #expect(recorder.outbox?.reports() == [url])
        let (log, details) = try EventLog.openingReport(at: url.path, keys: LogKeys(others: [keys.privateKey]))
        #expect(details.reason == ReportReason(kind: .requested) && details.note == "the list looks wrong" && details.triggerSeq == 40)
        let restored = try log.restoredState(app: AppIdentity(id: "com.example.notes"), reducer: Reducer<[String], String> { notes, note in notes.append(note) })
        #expect(restored == store.state)
        #expect(try FieldReport(contentsOf: url.path).header.triggerAction != nil)
        try await recorder.close()
    }

    @Test("previewReport shows the content and the secrets it looks like it holds, and writes nothing")
    func preview() async throws {
        let folder = try TemporaryDirectory()
        let keys = try ReportKey.generate(id: "team")
        let (recorder, store) = try Self.notesRecorder(at: folder.file("notes.rewind"), key: keys.publicKey)
        store.dispatch("hello")
        let clean = try await recorder.previewReport()
        #expect(clean.secrets.isEmpty && String(decoding: clean.content, as: UTF8.self).contains(#"\"hello\""#))
        store.dispatch("token \(Self.jwt)")
        let leaky = try await recorder.previewReport()
        #expect(leaky.secrets.map(\.kind) == [.jwt] && leaky.secrets.first?.seq == 2)
        // The same findings are sealed in the report's details.
        let opened = try FieldReport(bytes: leaky.sealed, path: "r").open(with: LogKeys(others: [keys.privateKey]))
        #expect(opened.details.secrets == leaky.secrets)
        #expect(recorder.outbox?.reports().isEmpty == true)
        try await recorder.close()
    }

    @Test("without a key, asking for a report says how to turn reports on")
    func reportsOff() async throws {
        let folder = try TemporaryDirectory()
        let (recorder, store) = try Self.notesRecorder(at: folder.file("notes.rewind"), key: nil)
        store.dispatch("hello")
        await #expect(throws: EventLogError.failed(
            path: folder.file("notes.rewind"), reason: "reports are off: set RecorderConfiguration.reports with the team's public key"
        )) { try await recorder.report() }
        #expect(recorder.outbox == nil)
        try await recorder.close()
    }
}
