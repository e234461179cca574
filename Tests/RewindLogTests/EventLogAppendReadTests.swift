import Foundation
import GRDB
import Rewind
import RewindCoding
@testable import RewindCodingCore
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

@Suite("EventLog append and read")
struct EventLogAppendReadTests {
    static let shop = AppIdentity(id: "com.example.shop", version: "1.0", actionSchemaVersion: 1, stateSchemaVersion: 1)

    static func records(count: Int, seed: UInt64) async -> [EventRecord<ShopAction>] {
        await Shop.sessionActions(count: count, seed: seed).enumerated().map { index, dispatched in
            EventRecord(dispatched.action, source: dispatched.source, time: Date(timeIntervalSince1970: 1_000 + Double(index)))
        }
    }

    @Test("every appended event reads back in order with its exact source, case and payload")
    func roundTrip() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let records = await Self.records(count: 400, seed: 5)
        do {
            let log = try EventLog(path: path)
            let session = try log.beginSession(app: Self.shop, initialState: ShopState())
            let firstHalf = try log.append(Array(records[..<200]), to: session)
            let secondHalf = try log.append(Array(records[200...]), to: session)
            #expect(firstHalf == 1...200)
            #expect(secondHalf == 201...400)
            try log.close()
        }

        let log = try EventLog(path: path, mode: .readOnly)
        var cursor = log.events(pageSize: 64)
        let events = try cursor.collect()
        #expect(events.map(\.seq) == Array(1...400))
        let codec = JSONPayloadCodec()
        for (event, record) in zip(events, records) {
            #expect(event.source == record.source)
            #expect(event.time == record.time.timeIntervalSince1970)
            #expect(try event.decodeAction(as: ShopAction.self, codec: codec, path: path) == record.action)
            #expect(event.actionCase == ActionCaseName.of(record.action))
        }
        let sessions = try log.sessions()
        #expect(sessions.count == 1)
        #expect(sessions[0].app == Self.shop)
        #expect(sessions[0].eventCount == 400)
        #expect(sessions[0].seqRange == 1...400)
        let initial = try #require(try log.snapshot(session: sessions[0].id, atOrBefore: 0))
        #expect(initial.kind == "initial")
        #expect(try initial.decodeState(as: ShopState.self, codec: codec, path: path) == ShopState())
    }

    @Test("case names are dotted case paths")
    func caseNames() {
        #expect(ActionCaseName.of(ShopAction.cart(.remove(productID: "mug"))) == "cart.remove")
        #expect(ActionCaseName.of(ShopAction.cart(.removeDiscount)) == "cart.removeDiscount")
        #expect(ActionCaseName.of(TodoAction.filter(.active)) == "filter.active")
        #expect(ActionCaseName.of(TodoAction.item(.move(id: UUID(), toList: UUID(), index: 1))) == "item.move")
        #expect(ActionCaseName.of(42) == "Int")
    }

    @Test("case paths found by encoding agree with reflection on every action of both example apps")
    func casePathsAgreeWithReflection() async {
        let shop = await Shop.sessionActions(count: 1_500, seed: 31).map(\.action)
        let todo = await Todo.sessionActions(count: 1_500, seed: 31).map(\.action)
        for action in shop { #expect(ActionCaseName.of(action) == ActionCaseName.reflected(action)) }
        for action in todo { #expect(ActionCaseName.of(action) == ActionCaseName.reflected(action)) }
        #expect(Set(shop.map { ActionCaseName.of($0) }).count > 8)
    }

    /// Names its case itself, and is also generated: the recorder must prefer the type's own names.
    @BinaryCodable
    enum SelfNamed: Codable, NamedAction {
        case tap(Int)
        var actionCaseName: String { "custom.tap" }
    }

    /// Neither generated nor named: the namer falls back to encoding or reflection.
    enum Synthesized: Codable { case pick(ShopAction), plain }

    @Test("a namer resolved once per type names every action as ActionCaseName.of does")
    func namersAgreeWithTheGeneralPath() async {
        let shop = await Shop.sessionActions(count: 1_500, seed: 31).map(\.action)
        let todo = await Todo.sessionActions(count: 1_500, seed: 31).map(\.action)
        let shopNamer = ActionCaseName.namer(for: ShopAction.self)
        let todoNamer = ActionCaseName.namer(for: TodoAction.self)
        for action in shop { #expect(shopNamer(action) == ActionCaseName.of(action)) }
        for action in todo { #expect(todoNamer(action) == ActionCaseName.of(action)) }

        #expect(ActionCaseName.namer(for: SelfNamed.self)(.tap(1)) == "custom.tap")
        let synthesized = ActionCaseName.namer(for: Synthesized.self)
        #expect(synthesized(.pick(.cart(.clear))) == "pick.cart.clear")
        #expect(synthesized(.plain) == "plain")
        #expect(ActionCaseName.namer(for: Int.self)(42) == "Int")
    }

    @Test("filters select by seq range, session, case pattern, file, line and limit")
    func filters() async throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("shop.rewind"))
        let records = await Self.records(count: 300, seed: 9)
        let first = try log.beginSession(app: Self.shop, initialState: ShopState())
        try log.append(Array(records[..<150]), to: first)
        let second = try log.beginSession(app: Self.shop, initialState: ShopState())
        try log.append(Array(records[150...]), to: second)
        #expect(second.baseSeq == 150)

        func seqs(_ filter: EventFilter) throws -> [Int64] {
            var cursor = log.events(filter, pageSize: 7)
            return try cursor.collect().map(\.seq)
        }
        #expect(try seqs(EventFilter(seqs: 10...20)) == Array(10...20))
        #expect(try seqs(EventFilter(session: second.id)) == Array(151...300))
        let cartSeqs = try seqs(EventFilter(actionCase: "cart.*"))
        #expect(cartSeqs == records.indices.filter { records[$0].action.cart != nil }.map { Int64($0 + 1) })
        let removes = try seqs(EventFilter(actionCase: "cart.remove"))
        #expect(removes == records.indices.filter { if case .cart(.remove) = records[$0].action { true } else { false } }.map { Int64($0 + 1) })
        let fromEffects = try seqs(EventFilter(file: "ShopEffects"))
        #expect(fromEffects == records.indices.filter { records[$0].source.file.contains("ShopEffects") }.map { Int64($0 + 1) })
        let line = try #require(records.first?.source.line)
        #expect(try seqs(EventFilter(line: Int(line))) == records.indices.filter { records[$0].source.line == line }.map { Int64($0 + 1) })
        #expect(try seqs(EventFilter(session: first.id, limit: 5)) == [1, 2, 3, 4, 5])
    }

    @Test("an unknown seq names the range the log holds")
    func unknownSeq() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let log = try EventLog(path: path)
        try log.append(await Self.records(count: 10, seed: 1), to: log.beginSession(app: Self.shop, initialState: ShopState()))
        #expect(throws: EventLogError.seqNotFound(path: path, seq: 11, available: 1...10)) { try log.event(at: 11) }
        #expect(try log.event(at: 10).seq == 10)
    }

    @Test("the timeline view reads as documented, with JSON payloads")
    func timelineView() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: Self.shop, initialState: ShopState())
        let source = ActionSource(file: "Shop/CartScreen.swift", function: "removeSwiped(_:)", line: 39, info: "swipe")
        try log.append([EventRecord(ShopAction.cart(.remove(productID: "mug")), source: source, time: Date(timeIntervalSince1970: 0.25))], to: session)
        try log.close()

        let database = try DatabaseQueue(path: path)
        let row = try #require(try database.read { db in
            try Row.fetchOne(db, sql: #"SELECT *, json_extract(payload, '$.cart._0.remove.productID') AS product FROM timeline WHERE file LIKE '%Cart%'"#)
        })
        #expect(Array(row.columnNames.prefix(9)) == ["seq", "session", "time", "action", "payload", "file", "function", "line", "info"])
        #expect(row["seq"] as Int64 == 1)
        #expect(row["time"] as String == "1970-01-01T00:00:00.250Z")
        #expect(row["action"] as String == "cart.remove")
        #expect(row["file"] as String == "Shop/CartScreen.swift")
        #expect(row["line"] as Int == 39)
        #expect(row["info"] as String == "swipe")
        #expect(row["product"] as String == "mug")
        #expect(Array(row.columnNames.dropFirst(9).prefix(4)) == ["origin", "redaction", "cause", "root"])
        #expect((row["cause"] as Int64?) == nil && (row["root"] as Int64?) == nil, "appended without causes: not known")
    }

    @Test("the timeline view shows causes as seqs: what an event led to, by its root")
    func timelineCauses() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let recorder = Recorder<ShopState, ShopAction>(log: try EventLog(path: path), app: Self.shop)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: .combine(recorder.middleware, Shop.effects(environment: .simulated)))
        store.dispatch(.catalogue(.load(at: Date())))
        store.dispatch(.cart(.clear))
        await store.waitUntilIdle()
        try await recorder.close()
        // What each event's cause and root are, by case (the effect's result may come before
        // or after the second tap).
        let rows = try await DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.action, c.action, r.action FROM timeline AS t
                LEFT JOIN timeline AS c ON c.seq = t.cause LEFT JOIN timeline AS r ON r.seq = t.root ORDER BY t.action
                """).map { "\($0[0] as String) \(($0[1] as String?) ?? "-") \(($0[2] as String?) ?? "-")" }
        }
        #expect(rows == ["cart.clear - cart.clear", "catalogue.load - catalogue.load", "catalogue.loaded catalogue.load catalogue.load"])
    }

    @Test("a payload that no longer decodes names its seq, case and coding path")
    func undecodablePayload() async throws {
        struct OldCart: Codable, Sendable { var productID: String }
        enum OldAction: Codable, Sendable { case cart(OldCart) }
        enum NewAction: Codable, Sendable { case cart(NewCart) }
        struct NewCart: Codable, Sendable { var productID: String; var quantity: Int }

        let folder = try TemporaryDirectory()
        let path = folder.file("app.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        try log.append([EventRecord(OldAction.cart(OldCart(productID: "mug")), source: ActionSource())], to: session)
        let event = try log.event(at: 1)
        let error = #expect(throws: EventLogError.self) {
            try event.decodeAction(as: NewAction.self, codec: JSONPayloadCodec(), path: path)
        }
        guard case let .decodingFailed(_, seq, actionCase, codingPath, reason)? = error else {
            Issue.record("unexpected \(String(describing: error))"); return
        }
        #expect(seq == 1)
        #expect(actionCase == "cart")
        #expect(codingPath == "cart._0")
        #expect(reason == "no value for key 'quantity'")
        #expect(error?.description.contains("seq 1 (cart) no longer decodes at cart._0") == true)
    }

    @Test("redaction scrubs or withholds payloads before they reach the disk, and says so")
    func redaction() throws {
        enum Login: Codable, Equatable, Sendable {
            case submit(user: String, password: String)
            case token(String)
            case logout
        }
        let redaction = Redaction<Int, Login> { action in
            switch action {
            case let .submit(user, _): .scrub(.submit(user: user, password: "•••"))
            case .token: .withhold
            case .logout: .keep
            }
        }
        let folder = try TemporaryDirectory()
        let path = folder.file("login.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: AppIdentity(id: "login"), initialState: 0)
        try log.append(
            [.submit(user: "ada", password: "hunter2"), .token("secret-token"), .logout].map { EventRecord($0, source: ActionSource()) },
            to: session, redaction: redaction
        )
        try log.close()

        let onDisk = try #require(fileBytes(path)) + (fileBytes(path + "-wal") ?? Data())
        #expect(onDisk.range(of: Data("hunter2".utf8)) == nil)
        #expect(onDisk.range(of: Data("secret-token".utf8)) == nil)
        var cursor = try EventLog(path: path, mode: .readOnly).events()
        let events = try cursor.collect()
        #expect(events.map(\.redaction) == ["fields", "action", nil])
        #expect(try events[0].decodeAction(as: Login.self, codec: JSONPayloadCodec(), path: path) == .submit(user: "ada", password: "•••"))
        #expect(events[1].payload == nil)
        let withheld = #expect(throws: EventLogError.self) { try events[1].decodeAction(as: Login.self, codec: JSONPayloadCodec(), path: path) }
        #expect(withheld?.description.contains("withheld by redaction") == true)
    }

    @Test("a policy that keeps everything writes actions and notes as given; one changed afterwards writes what the change says")
    func redactionChangedAfterwards() throws {
        let note = ActionSource(info: "tapped")
        func recorded(_ redaction: Redaction<Int, String>) throws -> [(redaction: String?, payload: Data?, note: String?)] {
            let folder = try TemporaryDirectory()
            let path = folder.file("policy.rewind")
            let log = try EventLog(path: path)
            let session = try log.beginSession(app: AppIdentity(id: "policy"), initialState: 0)
            try log.append(["kept", "secret"].map { EventRecord($0, source: note) }, to: session, redaction: redaction)
            var cursor = log.events()
            defer { try? log.close() }
            return try cursor.collect().map { ($0.redaction, $0.payload, $0.source.info) }
        }
        let plain = try recorded(.none)
        #expect(plain.map(\.redaction) == [nil, nil])
        #expect(plain.map(\.note) == ["tapped", "tapped"])
        #expect(plain.map { $0.payload.map { String(decoding: $0, as: UTF8.self) } } == [#""kept""#, #""secret""#])

        var withholding = Redaction<Int, String>.none
        withholding.decide = { $0 == "secret" ? .withhold : .keep }
        let withheld = try recorded(withholding)
        #expect(withheld.map(\.redaction) == [nil, "action"])
        #expect(withheld[1].payload == nil)
        #expect(withheld.map(\.note) == ["tapped", nil])

        var renoting = Redaction<Int, String>.none
        renoting.notes = { note, action in "\(note) on \(action)" }
        #expect(try recorded(renoting).map(\.note) == ["tapped on kept", "tapped on secret"])
        #expect(try recorded(.none.droppingNotes).map(\.note) == [nil, nil])
    }

    @Test("events go in several to a statement: writes of every size around a statement's read back whole, in order, snapshots in place")
    func severalRowsAStatement() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("rows.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: Self.shop, codec: BinaryPayloadCodec(), initialState: 0)
        // Payloads inline (each distinct), shared (the same long one again and again), absent,
        // and large enough to make the rows go in before a statement's worth has come.
        func payload(_ index: Int) -> Data? {
            switch index % 7 {
            case 0: nil
            case 1, 4: Data(repeating: 0xAB, count: 40)
            case 5 where index % 3 == 0: Data(repeating: UInt8(index % 251), count: EventRows.pendingBytesLimit / 3)
            default: Data("payload \(index)".utf8)
            }
        }
        var expected: [(payload: Data?, info: String?, cause: Int64?)] = []
        var snapshots: [(after: Int64, state: Data)] = []
        let sizes = [1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1_000]
        for (write, size) in sizes.enumerated() {
            let before = Int64(expected.count)
            var writes: [LogWrite] = []
            for index in 0..<size {
                let number = expected.count
                let info = number % 5 == 0 ? "note \(number)" : nil
                // Every third event's cause is the event before it (in this write, or the
                // last of the write before).
                let cause: EventLink? = number % 3 == 2 ? (index > 0 ? .earlier(1) : .seq(Int64(number))) : nil
                writes.append(.event(LogWrite.Event(
                    time: 1_000 + Double(number), actionCase: "step.\(number % 4)", payload: payload(number),
                    source: SourceKey(file: "App/File\(number % 3).swift", function: "f()", line: UInt(number), column: 1, origin: "call"),
                    info: info, redaction: number % 11 == 0 ? "fields" : nil, cause: cause
                )))
                expected.append((payload(number), info, cause == nil ? nil : Int64(number)))
                // A snapshot inside every other write, after its middle event.
                if write % 2 == 1, index == size / 2 {
                    let state = Data("state after \(expected.count)".utf8)
                    writes.append(.snapshot(time: 1_000 + Double(number), state: state))
                    snapshots.append((Int64(expected.count), state))
                }
            }
            let events = writes.filter { if case .event = $0 { true } else { false } }.count
            let seqs = try log.write(session: session, events: events) { _, emit in emit(writes) }
            #expect(seqs == before + 1...Int64(expected.count), "write of \(size)")
        }
        try log.close()

        let reader = try EventLog(path: path, mode: .readOnly)
        var cursor = reader.events(pageSize: 100)
        let events = try cursor.collect()
        #expect(events.map(\.seq) == Array(1...Int64(expected.count)))
        for (event, want) in zip(events, expected) {
            let number = Int(event.seq) - 1
            #expect(event.payload == want.payload, "payload of \(event.seq)")
            #expect(event.source.info == want.info)
            #expect(event.cause == want.cause, "cause of \(event.seq)")
            #expect(event.actionCase == "step.\(number % 4)")
            #expect(event.source.file == "App/File\(number % 3).swift" && event.source.line == UInt(number))
            #expect(event.time == 1_000 + Double(number))
            #expect(event.redaction == (number % 11 == 0 ? "fields" : nil))
        }
        for snapshot in snapshots {
            let stored = try #require(try reader.snapshot(session: session.id, atOrBefore: snapshot.after))
            #expect(stored.seq == snapshot.after)
            #expect(stored.state == snapshot.state)
        }
        #expect(try reader.sessions()[0].eventCount == expected.count)
        #expect(try reader.checkIntegrity().isSound)
    }

    @Test("a SQLite error keeps SQLite's code, its message and the statement, never the bound values")
    func sqliteErrorKeepsStatement() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("app.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'events are refused'); END")
        }
        let error = #expect(throws: EventLogError.self) {
            try log.append([EventRecord("secret-value", source: ActionSource())], to: session)
        }
        #expect(error?.description == """
            \(path): SQLite error 1811: events are refused - while executing \
            `INSERT INTO events (seq, session_id, time, action_id, payload, source_id, info, redaction, cause_distance, root_distance) \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
            """)
        #expect(error?.description.contains("secret-value") == false)
        // Many rows a statement: named by one row's statement and the count.
        let many = #expect(throws: EventLogError.self) {
            try log.append(Array(repeating: EventRecord("secret-value", source: ActionSource()), count: 40), to: session)
        }
        #expect(many?.description == """
            \(path): SQLite error 1811: events are refused - while executing \
            `INSERT INTO events (seq, session_id, time, action_id, payload, source_id, info, redaction, cause_distance, root_distance) \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), … (32 rows)`
            """)
    }
}
