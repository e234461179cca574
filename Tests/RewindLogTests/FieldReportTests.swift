import Foundation
import Rewind
import RewindExamples
import RewindLog
@testable import RewindLogCore
import RewindTestSupport
import Testing

/// A report is sealed on a device and opened by the team: what it holds replays as the log did
/// up to its trigger, nothing but its header reads without the team's key, and a changed,
/// crafted or truncated file fails with a clear error — never a trap, never unbounded memory.
@Suite("Field reports")
struct FieldReportTests {
    static let app = AppIdentity(id: "com.example.shop", version: "2.1")

    /// A shop log of `actions` actions, with what the live store did.
    static func shopLog(
        in folder: TemporaryDirectory, actions: Int = 600, snapshotInterval: Int? = nil
    ) async throws -> (path: String, session: RecordedSession<ShopState, ShopAction>) {
        let path = folder.file("shop.rewind")
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        if let snapshotInterval { configuration.snapshotInterval = snapshotInterval }
        let session = try await recordSession(
            into: try EventLog(path: path), app: app, initialState: ShopState(), reducer: Shop.reducer,
            effects: Shop.effects(environment: .simulated), user: Shopper(seed: 7), actions: actions, configuration: configuration
        )
        return (path, session)
    }

    static let keys = try! ReportKey.generate(id: "team-2026")

    static func sealed(_ log: EventLog, trigger: Int64? = nil, options: ReportOptions? = nil) throws -> Data {
        try log.sealReport(
            session: 1, trigger: trigger, reason: ReportReason(kind: .requested), note: "the total went negative",
            options: options ?? ReportOptions(key: keys.publicKey)
        )
    }

    static func write(_ bytes: Data, in folder: TemporaryDirectory, name: String = "report.rwreport") throws -> String {
        let path = folder.file(name)
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a report replays to the live state at its trigger, with the window's events as recorded")
    func replaysToTrigger() async throws {
        let folder = try TemporaryDirectory()
        let (path, recorded) = try await Self.shopLog(in: folder)
        let log = try EventLog(path: path, mode: .readOnly)
        var options = ReportOptions(key: Self.keys.publicKey)
        options.window = .events(150)
        options.device = ["os": "Linux"]
        let reportPath = try Self.write(try Self.sealed(log, trigger: 400, options: options), in: folder)

        let (opened, details) = try EventLog.openingReport(at: reportPath, keys: LogKeys(others: [Self.keys.privateKey]))
        #expect(details.reason == ReportReason(kind: .requested) && details.note == "the total went negative")
        // The 150 events asked for, from just after the snapshot at or before the first of them.
        let baseSnapshot = try log.snapshot(session: 1, atOrBefore: 250)
        let base = try #require(baseSnapshot).seq
        #expect(details.triggerSeq == 400 && details.lastSeq == 400 && details.firstSeq == base + 1 && details.keptEvents == Int(400 - base))
        #expect(details.requestedEvents == 150 && details.device == ["os": "Linux"] && !details.exceedsBound)
        var cursor = opened.events(pageSize: 100)
        let events = try cursor.collect()
        #expect(events.map(\.seq) == Array((base + 1)...400))
        for event in events {
            let original = try log.event(at: event.seq)
            #expect(event.actionCase == original.actionCase && event.payload == original.payload && event.source == original.source)
        }
        let state = try opened.restoredState(app: Self.app, reducer: Shop.reducer)
        #expect(state == recorded.states[399])
        // Nothing after the trigger: no event, no later snapshot.
        #expect(try opened.snapshotIndex(session: 1).allSatisfy { $0.seq <= 400 })
    }

    @Test("without the team's key only the header reads; the header says app, reason and trigger")
    func headerOnlyWithoutKey() async throws {
        let folder = try TemporaryDirectory()
        let (path, recorded) = try await Self.shopLog(in: folder, actions: 200)
        let reportPath = try Self.write(try Self.sealed(try EventLog(path: path, mode: .readOnly), trigger: 120), in: folder)
        let report = try FieldReport(contentsOf: reportPath)
        #expect(report.header.app == Self.app && report.header.keyID == "team-2026" && report.header.reason.kind == .requested)
        #expect(report.header.triggerAction == ActionCaseName.of(recorded.reduced[119].action))
        #expect(report.header.triggerSource == recorded.reduced[119].source)
        #expect(throws: EventLogError.unreadableReport(
            path: reportPath, reason: "it is sealed to the team's key 'team-2026'; give its private key with --key-file (a line `team-2026 BASE64`)"
        )) { try report.open(with: LogKeys()) }
        // Another key of the same id: authentication fails, nothing is read.
        let other = try ReportKey.generate(id: "team-2026").privateKey
        #expect(throws: EventLogError.unreadableReport(
            path: reportPath, reason: "it fails authentication: its header or content was changed, or key 'team-2026' is not the one it was sealed to"
        )) { try report.open(with: LogKeys(others: [other])) }
        // A log's symmetric key of that id that is not X25519's size.
        let short = try LogKey(id: "team-2026", bytes: Data(repeating: 1, count: 16))
        #expect(throws: EventLogError.self) { try report.open(with: LogKeys(others: [short])) }
    }

    @Test("sealing the trigger leaves the header without it")
    func sealedTrigger() async throws {
        let folder = try TemporaryDirectory()
        let (path, _) = try await Self.shopLog(in: folder, actions: 100)
        var options = ReportOptions(key: Self.keys.publicKey)
        options.sealsTrigger = true
        let report = try FieldReport(bytes: try Self.sealed(try EventLog(path: path, mode: .readOnly), options: options), path: "r")
        #expect(report.header.triggerAction == nil && report.header.triggerSource == nil)
        #expect(try report.open(with: LogKeys(others: [Self.keys.privateKey])).details.triggerSeq == 100)
    }

    @Test("every byte of the header, the key and the content is authenticated")
    func tampering() async throws {
        let folder = try TemporaryDirectory()
        let (path, _) = try await Self.shopLog(in: folder, actions: 60)
        let bytes = try Self.sealed(try EventLog(path: path, mode: .readOnly))
        let keys = LogKeys(others: [Self.keys.privateKey])
        #expect(throws: Never.self) { try FieldReport(bytes: bytes, path: "r").open(with: keys) }
        // Every byte after the magic, version and lengths: the header's JSON, the encapsulated
        // key, and a stride through the sealed content.
        let headerLength = bytes[10..<14].reduce(0) { $0 << 8 | Int($1) }
        let positions = Array(14..<(14 + headerLength)) + Array((16 + headerLength)..<(48 + headerLength))
            + Array(stride(from: 48 + headerLength, to: bytes.count, by: max(1, bytes.count / 300))) + [bytes.count - 1]
        for position in positions {
            var changed = bytes
            changed[position] ^= 0x20
            do {
                _ = try FieldReport(bytes: changed, path: "r").open(with: keys)
                Issue.record("a report changed at byte \(position) opened")
            } catch {
                guard case .unreadableReport = error else { Issue.record("byte \(position): \(error)"); continue }
            }
        }
    }

    /// A valid report's bytes with `value` written big-endian at `offset`.
    static func setting<T: FixedWidthInteger>(_ bytes: Data, _ offset: Int, _ value: T) -> Data {
        var bytes = bytes
        withUnsafeBytes(of: value.bigEndian) { bytes.replaceSubrange(offset..<(offset + MemoryLayout<T>.size), with: $0) }
        return bytes
    }

    @Test("every length and version field at its edges, and every truncation, is refused with a reason")
    func craftedFields() async throws {
        let folder = try TemporaryDirectory()
        let (path, _) = try await Self.shopLog(in: folder, actions: 30)
        let bytes = try Self.sealed(try EventLog(path: path, mode: .readOnly))
        let headerLength = bytes[10..<14].reduce(0) { $0 << 8 | Int($1) }
        let keyLengthAt = 14 + headerLength
        let crafted: [(String, Data, String)] = [
            ("empty", Data(), "not a Rewind report"),
            ("another magic", Self.setting(bytes, 0, UInt64(0)), "not a Rewind report"),
            ("version 0", Self.setting(bytes, 8, UInt16(0)), "report format 0 is not one Rewind ever wrote"),
            ("version 2", Self.setting(bytes, 8, UInt16(2)), "report format 2; this build reads format 1 — update Rewind to open it"),
            ("version max", Self.setting(bytes, 8, UInt16.max), "report format 65535"),
            ("header length 0", Self.setting(bytes, 10, UInt32(0)), "its header claims 0 bytes"),
            ("header length 1", Self.setting(bytes, 10, UInt32(1)), "its header claims 1 bytes"),
            ("header length one short", Self.setting(bytes, 10, UInt32(headerLength - 1)), "its header is not a report header"),
            ("header length 16385", Self.setting(bytes, 10, UInt32(16_385)), "its header claims 16385 bytes"),
            ("header length max", Self.setting(bytes, 10, UInt32.max), "its header claims 4294967295 bytes"),
            ("key length 0", Self.setting(bytes, keyLengthAt, UInt16(0)), "its encapsulated key claims 0 bytes"),
            ("key length 31", Self.setting(bytes, keyLengthAt, UInt16(31)), "its encapsulated key claims 31 bytes"),
            ("key length 33", Self.setting(bytes, keyLengthAt, UInt16(33)), "its encapsulated key claims 33 bytes"),
            ("key length max", Self.setting(bytes, keyLengthAt, UInt16.max), "its encapsulated key claims 65535 bytes"),
            ("no content", bytes.prefix(keyLengthAt + 2 + 32), "it ends before its sealed content"),
            ("a tag's worth short", bytes.prefix(keyLengthAt + 2 + 32 + 15), "it ends before its sealed content"),
        ]
        for (what, data, expected) in crafted {
            do {
                _ = try FieldReport(bytes: data, path: "r").open(with: LogKeys(others: [Self.keys.privateKey]))
                Issue.record("\(what): opened")
            } catch {
                #expect(error.description.contains(expected), "\(what): \(error)")
            }
        }
        // Every truncation through the header and key, and a stride through the content.
        for length in Array(0..<(keyLengthAt + 40)) + Array(stride(from: keyLengthAt + 40, to: bytes.count, by: 97)) {
            #expect(throws: EventLogError.self, "cut to \(length)") {
                try FieldReport(bytes: bytes.prefix(length), path: "r").open(with: LogKeys(others: [Self.keys.privateKey]))
            }
        }
    }

    @Test("a header that is JSON but not a report's, or names another suite or an odd key id, is refused")
    func craftedHeaders() throws {
        func report(header: String) -> Data {
            var bytes = Data("RWREPORT".utf8) + Data([0, 1])
            bytes += withUnsafeBytes(of: UInt32(header.utf8.count).bigEndian) { Data($0) }
            bytes += Data(header.utf8) + Data([0, 32]) + Data(repeating: 7, count: 64)
            return bytes
        }
        let app = #""app":{"id":"a","version":"1","actionSchemaVersion":1,"stateSchemaVersion":1},"reason":{"kind":"crash"},"createdAt":0"#
        let cases: [(String, String)] = [
            ("[]", "its header is not a report header"),
            (#"{"format":"rewind-export","keyID":"k","suite":"X25519-SHA256-ChaCha20Poly1305",\#(app)}"#, "its header's format is 'rewind-export'"),
            (#"{"format":"rewind-report","keyID":"k","suite":"P256",\#(app)}"#, "it is sealed with 'P256'"),
            (#"{"format":"rewind-report","keyID":"a b","suite":"X25519-SHA256-ChaCha20Poly1305",\#(app)}"#, "its header's key id"),
            (#"{"format":"rewind-report","keyID":"\u001b[2J","suite":"X25519-SHA256-ChaCha20Poly1305",\#(app)}"#, "its header's key id"),
            (#"{"format":"rewind-report","keyID":"k","suite":"X25519-SHA256-ChaCha20Poly1305","app":{},"reason":{"kind":"crash"},"createdAt":0}"#, "its header is not a report header"),
        ]
        for (header, expected) in cases {
            #expect(throws: EventLogError.self) { try FieldReport(bytes: report(header: header), path: "r") }
            do { _ = try FieldReport(bytes: report(header: header), path: "r") } catch {
                #expect(error.description.contains(expected), "\(header): \(error)")
            }
        }
        // A header sealed right with a format string carrying an escape: quoted, not passed on.
        do { _ = try FieldReport(bytes: report(header: #"{"format":"\u001b[31m","keyID":"k","suite":"x",\#(app)}"#), path: "r") } catch {
            #expect(!error.description.contains("\u{1B}"))
        }
    }

    @Test("content sealed right but not a report's is refused: no report line, not zlib, a bomb, events that do not import")
    func craftedContent() throws {
        let folder = try TemporaryDirectory()
        let header = ReportHeader(keyID: "team-2026", app: Self.app, reason: ReportReason(kind: .crash, name: "SIGSEGV"), createdAt: 0)
        let details = ReportDetails(reason: ReportReason(kind: .crash), session: 1)
        let keys = LogKeys(others: [Self.keys.privateKey])
        let notAnExport = try FieldReport.seal(header: header, details: details, export: Data("{\"type\":\"event\"}\n".utf8), to: Self.keys.publicKey)
        let path = try Self.write(notAnExport, in: folder)
        #expect(throws: Never.self) { try FieldReport(contentsOf: path).open(with: keys) }
        do {
            _ = try EventLog.openingReport(at: path, keys: keys)
            Issue.record("content that is no export opened as a log")
        } catch {
            #expect(error.description.contains("cannot open this report (its events do not import:"), "\(error)")
            #expect(!error.description.contains("rewind-upgraded-"), "\(error)")
        }
        // The inflate bound: refused once past it, before holding more.
        let zeros = try ReportCompression.compressed(Data(count: 1 << 20))
        #expect(throws: EventLogError.unreadableReport(path: "r", reason: "its content inflates to more than 65536 bytes, more than a report may hold")) {
            try ReportCompression.decompressed(zeros, limit: 65_536, path: "r")
        }
        #expect(try ReportCompression.decompressed(zeros, limit: 1 << 20, path: "r").count == 1 << 20)
        #expect(throws: EventLogError.self) { try ReportCompression.decompressed(zeros.dropLast(4), limit: 1 << 20, path: "r") }
        #expect(throws: EventLogError.self) { try ReportCompression.decompressed(zeros + Data([1]), limit: 1 << 20, path: "r") }
        #expect(throws: EventLogError.self) { try ReportCompression.decompressed(Data("not zlib".utf8), limit: 1 << 20, path: "r") }
    }

    @Test("the size bound shrinks the window until it fits, keeping base snapshot and trigger; too big alone is flagged, kept")
    func sizeBound() async throws {
        let folder = try TemporaryDirectory()
        let (path, recorded) = try await Self.shopLog(in: folder, actions: 1_500, snapshotInterval: 50)
        let log = try EventLog(path: path, mode: .readOnly)
        let keys = LogKeys(others: [Self.keys.privateKey])
        // The effects dispatch too: the trigger is the session's last event, whatever its seq.
        let range = try log.session(1).seqRange
        let end = try #require(range).upperBound
        var options = ReportOptions(key: Self.keys.publicKey)
        options.window = .session

        // Too large even from the last snapshot before the trigger: as small as it gets, kept
        // whole and flagged.
        options.sizeLimit = 200
        let smallest = try Self.sealed(log, options: options)
        let flagged = try FieldReport(bytes: smallest, path: "r").open(with: keys).details
        let lastSnapshot = try log.snapshot(session: 1, atOrBefore: end - 1)
        let last = try #require(lastSnapshot).seq
        #expect(smallest.count > 200 && flagged.exceedsBound && flagged.keptEvents == Int(end - last) && flagged.triggerSeq == end)
        let (alone, _) = try EventLog.openingReport(at: try Self.write(smallest, in: folder, name: "small.rwreport"), keys: keys)
        #expect(try alone.restoredState(app: Self.app, reducer: Shop.reducer) == recorded.states[Int(end) - 1])

        // Between that and the whole session: a window in between that fits.
        options.sizeLimit = .max
        let whole = try Self.sealed(log, options: options)
        #expect(try FieldReport(bytes: whole, path: "r").open(with: keys).details.keptEvents == Int(end))
        options.sizeLimit = (smallest.count + whole.count) / 2
        let bounded = try Self.sealed(log, options: options)
        #expect(bounded.count <= options.sizeLimit)
        let details = try FieldReport(bytes: bounded, path: "r").open(with: keys).details
        #expect(details.keptEvents < Int(end) && details.keptEvents > flagged.keptEvents && details.lastSeq == end && !details.exceedsBound)
        let (opened, _) = try EventLog.openingReport(at: try Self.write(bounded, in: folder), keys: keys)
        #expect(try opened.restoredState(app: Self.app, reducer: Shop.reducer) == recorded.states[Int(end) - 1])
    }

    @Test("a window of seconds keeps the events of those seconds up to the trigger")
    func secondsWindow() async throws {
        let folder = try TemporaryDirectory()
        let (path, _) = try await Self.shopLog(in: folder, actions: 300)
        let log = try EventLog(path: path, mode: .readOnly)
        let trigger = try log.event(at: 250)
        var options = ReportOptions(key: Self.keys.publicKey)
        options.window = .seconds(0)
        let details = try FieldReport(bytes: try Self.sealed(log, trigger: 250, options: options), path: "r")
            .open(with: LogKeys(others: [Self.keys.privateKey])).details
        var filter = EventFilter()
        filter.times = trigger.time...trigger.time
        var cursor = log.events(filter)
        let sameInstant = try cursor.collect().filter { $0.seq <= 250 }
        let firstAsked = try #require(sameInstant.first).seq
        let baseSnapshot = try log.snapshot(session: 1, atOrBefore: firstAsked - 1)
        let base = try #require(baseSnapshot).seq
        #expect(details.firstSeq == base + 1 && details.keptEvents == Int(250 - base))
        #expect(throws: EventLogError.self) { try Self.sealed(log, trigger: 301) }
    }
}
