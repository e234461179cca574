import Foundation
import GRDB
import Rewind
import RewindExamples
import RewindCoding
@testable import RewindCodingCore
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

@Suite("Binary codec")
struct BinaryCodecTests {
    static func roundTrip<T: Codable & Equatable>(_ value: T, _ codec: BinaryPayloadCodec = BinaryPayloadCodec()) throws -> T {
        try codec.decode(T.self, from: codec.encode(value))
    }

    @Test("every action and state of both example apps' sessions round-trips")
    func exampleApps() async throws {
        let codec = BinaryPayloadCodec()
        var shop = ShopState()
        for dispatched in await Shop.sessionActions(count: 1_500, seed: 3) {
            #expect(try Self.roundTrip(dispatched.action, codec) == dispatched.action)
            #expect(try Self.roundTrip(dispatched.source, codec) == dispatched.source)
            Shop.reducer(&shop, dispatched.action)
        }
        #expect(try Self.roundTrip(shop, codec) == shop)
        var todo = TodoState()
        for dispatched in await Todo.sessionActions(count: 1_500, seed: 3) {
            #expect(try Self.roundTrip(dispatched.action, codec) == dispatched.action)
            Todo.reducer(&todo, dispatched.action)
        }
        #expect(try Self.roundTrip(todo, codec) == todo)
    }

    struct Edges: Codable, Equatable {
        indirect enum Kind: Codable, Equatable { case plain, labelled(name: String, count: Int), nested(Kind?), pair(Int, String) }
        enum Raw: String, Codable { case one, two }
        struct Empty: Codable, Equatable {}
        var nestedOptional: Int??
        var absentNested: Int?? = .some(nil)
        var none: String?
        var emptyArray: [Int] = []
        var emptyDictionary: [String: Int] = [:]
        var empty = Empty()
        var unicode = "naïve café — 日本語 🎉 \u{0}"
        var big: [Int64] = [.min, .max, 0, -1]
        var unsigned: UInt64 = .max
        var small: [Int8] = [.min, .max]
        var date = Date(timeIntervalSinceReferenceDate: 812_345_678.123456)
        var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        var data = Data([0, 1, 2, 255])
        var url = URL(string: "https://example.com/a?b=c")!
        var doubles: [Double] = [0, -0.0, .infinity, -.infinity, .pi, .leastNonzeroMagnitude]
        var float: Float = 1.5
        var flags = [true, false]
        var kinds: [Kind] = [.plain, .labelled(name: "x", count: -3), .nested(.nested(nil)), .nested(.plain), .pair(7, "seven")]
        var raw: Raw = .two
        var intKeys: [Int: String] = [3: "three", -1: "minus one"]
        var arrays: [[String?]] = [[], ["a", nil], [nil]]
        var set: Set<String> = ["x"]
    }

    @Test("edge cases: nested optionals, empty containers, unicode, extreme integers, Date, UUID, Data, enums")
    func edgeCases() throws {
        let value = Edges(nestedOptional: .some(.some(5)))
        #expect(try Self.roundTrip(value) == value)
        var other = value
        other.nestedOptional = .some(nil)
        other.absentNested = nil
        #expect(try Self.roundTrip(other) == other)
        #expect(try Self.roundTrip(Optional<Int>.none) == nil)
        #expect(try Self.roundTrip(Int??.some(nil)) == .some(nil))
        #expect(try Self.roundTrip("") == "")
        #expect(try Self.roundTrip([[Int]]()) == [])
    }

    @Test("compact: keys and numbers shrink several times; strings stay strings; a UUID takes 16 bytes")
    func compact() async throws {
        let binary = BinaryPayloadCodec(), json = JSONPayloadCodec()
        let actions = await Shop.sessionActions(count: 2_000, seed: 9).map(\.action)
        let binaryBytes = try actions.reduce(0) { $0 + (try binary.encode($1).count) }
        let jsonBytes = try actions.reduce(0) { $0 + (try json.encode($1).count) }
        // Product names and other strings cost the same in both; the rest shrinks.
        #expect(binaryBytes * 2 < jsonBytes, "binary \(binaryBytes) vs JSON \(jsonBytes)")
        #expect(try binary.encode(UUID()).count == 16)
        let noPayload = ShopAction.cart(.removeDiscount)
        #expect(try binary.encode(noPayload).count * 3 < json.encode(noPayload).count)
        let add = ShopAction.cart(.add(productID: "kettle", quantity: 1))
        #expect(try binary.encode(add).count * 2 < json.encode(add).count)
    }

    struct Version1: Codable, Equatable { var name: String; var retired: Int; var kept: Bool }
    struct Version2: Codable, Equatable { var name: String; var kept: Bool; var added: String? }

    @Test("a type that lost a field skips it; one that gained an optional field reads it as nil")
    func schemaEvolution() throws {
        let codec = BinaryPayloadCodec()
        let old = try codec.encode(Version1(name: "a", retired: 42, kept: true))
        #expect(try codec.decode(Version2.self, from: old) == Version2(name: "a", kept: true, added: nil))
        let error = #expect(throws: DecodingError.self) { try codec.decode(Version1.self, from: codec.encode(Version2(name: "b", kept: false))) }
        guard case let .keyNotFound(key, _)? = error else { Issue.record("unexpected \(String(describing: error))"); return }
        #expect(key.stringValue == "retired")
    }

    enum Shelf: String, Codable, CodingKeyRepresentable { case top, bottom }
    struct Catalogue: Codable, Equatable {
        var stock: [String: Int]
        var byID: [Int: String]
        var nested: [String: [String: Bool]]
        var shelves: [Shelf: Int]
    }

    @Test("a dictionary's keys are written inline, never interned: data keys stay out of the symbols table, field names go in")
    func dictionaryKeysInline() throws {
        let codec = BinaryPayloadCodec()
        let catalogue = Catalogue(
            stock: ["sku-1": 3, "": 0, "日本": 1], byID: [7: "seven", -2: "minus two"],
            nested: ["outer": ["inner": true]], shelves: [.top: 1]
        )
        #expect(try Self.roundTrip(catalogue, codec) == catalogue)
        #expect(Set(codec.unpersistedSymbols().map(\.name)) == ["stock", "byID", "nested", "shelves"])
        // [String: Int] ["k": 5]: one entry, symbol 0, the key inline, then the value's length and zigzag 5.
        #expect(try codec.encode(["k": 5]) == Data([1, 0, 1, UInt8(ascii: "k"), 1, 10]))
    }

    @Test("a dictionary written by an older version, its keys as symbols, still reads")
    func dictionaryKeysAsSymbols() throws {
        let codec = BinaryPayloadCodec()
        try codec.learn([CodecSymbol(id: 1, name: "k")])
        #expect(try codec.decode([String: Int].self, from: Data([1, 1, 1, 10])) == ["k": 5])
        #expect(try codec.decode([String: Int].self, from: Data([2, 1, 1, 10, 0, 1, UInt8(ascii: "j"), 1, 2])) == ["k": 5, "j": 1])
    }

    @Test("an inline key that runs past its container, or is not UTF-8, is an error")
    func damagedInlineKeys() throws {
        let codec = BinaryPayloadCodec()
        for bytes: [UInt8] in [[1, 0, 9, 1, 1, 10], [1, 0, 1, 0xFF, 1, 10], [1, 0], [1, 0, 0x80]] {
            #expect(throws: DecodingError.self, "\(bytes)") { try codec.decode([String: Int].self, from: Data(bytes)) }
            #expect(throws: DecodingError.self, "\(bytes)") { try codec.decode(ShopAction.self, from: Data(bytes)) }
        }
    }

    @Test("random and mutated bytes make errors, never crashes")
    func fuzz() async throws {
        let codec = BinaryPayloadCodec()
        let valid = try await Shop.sessionActions(count: 300, seed: 4).map { try codec.encode($0.action) }
            + [try codec.encode(Edges(nestedOptional: 1)), try codec.encode(ShopState())]
        let (decoded, failed) = FuzzedPayloads.attempt(FuzzedPayloads.make(from: valid, seed: 99), with: [
            { _ = try codec.decode(ShopAction.self, from: $0) },
            { _ = try codec.decode(Edges.self, from: $0) },
            { _ = try codec.decode(ShopState.self, from: $0) },
            { _ = try codec.decode([String: [Int?]].self, from: $0) },
        ])
        #expect(failed > 0)
        #expect(decoded + failed == 36_000)
    }

    @Test("a binary log records, replays byte for byte from another connection, and exports and imports")
    func binaryLog() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.codec = BinaryPayloadCodec()
        configuration.snapshotInterval = 40
        configuration.snapshotBudget = .infinity
        let live = try await recordSession(
            into: try EventLog(path: path), app: AppIdentity(id: "com.example.shop"), initialState: ShopState(),
            reducer: Shop.reducer, effects: Shop.effects(environment: .simulated), user: Shopper(seed: 13), actions: 300,
            configuration: configuration
        )
        let reader = try EventLog(path: path, mode: .readOnly)
        #expect(try reader.sessions().first?.codec == "binary")
        let codec = try #require(reader.codecs["binary"])
        var cursor = reader.events()
        var index = 0
        while let event = try cursor.next() {
            #expect(try event.decodeAction(as: ShopAction.self, codec: codec, path: path) == live.reduced[index].action)
            index += 1
        }
        #expect(index == 300)
        let snapshot = try #require(try reader.snapshot(session: 1, atOrBefore: 280))
        #expect(try snapshot.decodeState(as: ShopState.self, codec: codec, path: path) == live.states[279])

        try reader.export(to: URL(fileURLWithPath: folder.file("shop.jsonl")))
        let imported = try EventLog.importLog(from: URL(fileURLWithPath: folder.file("shop.jsonl")), to: folder.file("imported.rewind"))
        var copy = imported.events()
        let first = try #require(try copy.next())
        #expect(try first.decodeAction(as: ShopAction.self, codec: imported.codecs["binary"]!, path: imported.path) == live.reduced[0].action)
        #expect(try imported.sessions() == reader.sessions())
        #expect(try imported.checkIntegrity().isSound)
    }

    @Test("two writers on one log never give one symbol id two names")
    func twoWriters() throws {
        struct A: Codable, Equatable { var alpha: Int; var shared: String }
        struct B: Codable, Equatable { var beta: Int; var shared: String }
        let folder = try TemporaryDirectory()
        let path = folder.file("two.rewind")
        let first = try EventLog(path: path), second = try EventLog(path: path)
        let binary = BinaryPayloadCodec()
        let one = try first.beginSession(app: AppIdentity(id: "a"), codec: binary, initialState: A(alpha: 0, shared: ""))
        let two = try second.beginSession(app: AppIdentity(id: "b"), codec: binary, initialState: B(beta: 0, shared: ""))
        for round in 0..<20 {
            try first.append([EventRecord(A(alpha: round, shared: "a\(round)"), source: ActionSource())], to: one)
            try second.append([EventRecord(B(beta: round, shared: "b\(round)"), source: ActionSource())], to: two)
        }
        let reader = try EventLog(path: path, mode: .readOnly)
        let codec = reader.codecs["binary"]!
        var cursor = reader.events(EventFilter(session: one.id))
        var seen: [A] = []
        while let event = try cursor.next() { seen.append(try event.decodeAction(as: A.self, codec: codec, path: path)) }
        #expect(seen == (0..<20).map { A(alpha: $0, shared: "a\($0)") })
        var others = reader.events(EventFilter(session: two.id))
        #expect(try others.collect().count == 20)
        let names = try Set(reader.read { db in try String.fetchAll(db, sql: "SELECT name FROM symbols") })
        #expect(names.isSuperset(of: ["alpha", "beta", "shared"]))
    }

    @Test("a writer whose transaction fails forgets the symbols it interned; another writer's numbers win")
    func failedWriteForgetsSymbols() throws {
        struct Gamma: Codable, Equatable { var gamma: String }
        struct Delta: Codable, Equatable { var delta: String }
        let folder = try TemporaryDirectory()
        let path = folder.file("two.rewind")
        let first = try EventLog(path: path), second = try EventLog(path: path)
        let one = try first.beginSession(app: AppIdentity(id: "a"), codec: BinaryPayloadCodec(), initialState: 0)
        let two = try second.beginSession(app: AppIdentity(id: "b"), codec: BinaryPayloadCodec(), initialState: 0)

        // The first writer's disk fills up (SQLite's page limit on its connection only) while it
        try first.simulateFullDisk()
        let big = String(repeating: "g", count: 50_000)
        #expect(throws: EventLogError.diskFull(path: path)) {
            try first.append([EventRecord(Gamma(gamma: big), source: ActionSource())], to: one)
        }
        // Meanwhile the second writer stores 'delta', which takes the number 'gamma' had.
        try second.append([EventRecord(Delta(delta: "d"), source: ActionSource())], to: two)
        // Space comes back; the first writer records 'gamma' again.
        try first.freeDiskSpace()
        try first.append([EventRecord(Gamma(gamma: "g"), source: ActionSource())], to: one)

        let reader = try EventLog(path: path, mode: .readOnly)
        var gammas = reader.events(EventFilter(session: one.id)), deltas = reader.events(EventFilter(session: two.id))
        #expect(try gammas.collect().map { try reader.decodeAction(of: $0, as: Gamma.self) } == [Gamma(gamma: "g")])
        #expect(try deltas.collect().map { try reader.decodeAction(of: $0, as: Delta.self) } == [Delta(delta: "d")])
        let symbols = try reader.read { db in try Row.fetchAll(db, sql: "SELECT id, name FROM symbols ORDER BY id") }
        #expect(Set(symbols.map { $0["name"] as String }).isSuperset(of: ["gamma", "delta"]))
        #expect(Set(symbols.map { $0["id"] as Int64 }).count == symbols.count)
    }

    @Test("learning a symbol that contradicts a known one is refused, naming both")
    func conflictingSymbolIsRefused() throws {
        let table = SymbolTable()
        _ = table.id(for: "price")
        try table.learn([CodecSymbol(id: 1, name: "price")])
        #expect(throws: SymbolTableDamage.self) { try table.learn([CodecSymbol(id: 1, name: "total")]) }
        #expect(throws: SymbolTableDamage.self) { try table.learn([CodecSymbol(id: 4_000_000_000, name: "far")]) }
        #expect(throws: SymbolTableDamage.self) { try table.learn([CodecSymbol(id: 0, name: "zero")]) }
        #expect(table.names == ["price"])
        #expect(SymbolTableDamage.conflict(id: 1, inFile: "total", known: "price").description
            == "symbol 1 is 'total' in the log but 'price' in this connection's table")
    }

    @Test("the symbol index finds every name it was built from, and nothing else")
    func symbolIndex() {
        // Enough names to force probing past collisions; unicode, an empty name, and prefixes.
        var names: [String: UInt32] = ["": 1, "é": 2, "日本語": 3, "_0": 4, "_00": 5, "productID": 6]
        for number in 0..<2_000 { names["key\(number)"] = UInt32(names.count + 1) }
        let index = SymbolIndex(names: names)
        for (name, id) in names { #expect(index.id(for: name) == id, "\(name)") }
        for missing in ["productId", "_", "key2000", "key-1", "日本", "e\u{301}"] { #expect(index.id(for: missing) == nil, "\(missing)") }
        // A name built at run time (a heap string) finds the same entry as a literal.
        #expect(index.id(for: String(["product", "ID"].joined())) == 6)
        #expect(SymbolIndex(names: [:]).id(for: "anything") == nil)
    }

    @Test("a pass encodes with symbols interned after its index was taken, and later passes see them")
    func symbolsAddedDuringAPass() throws {
        struct First: Codable, Equatable { var one: Int }
        struct Second: Codable, Equatable { var one: Int; var two: First }
        let codec = BinaryPayloadCodec()
        #expect(try Self.roundTrip(First(one: 1), codec) == First(one: 1))
        let second = Second(one: 2, two: First(one: 3))
        #expect(try Self.roundTrip(second, codec) == second)
        let two = try #require(codec.symbols.index.id(for: "two"))
        #expect(codec.symbols.names[Int(two) - 1] == "two")
    }

    @Test("an encoder made for a batch never writes a symbol forgotten after a rollback, even when another writer took its id")
    func encoderAfterForgottenSymbols() throws {
        let codec = BinaryPayloadCodec()
        let encode = codec.encoder(for: ShopAction.self)
        let action = ShopAction.cart(.add(productID: "mug", quantity: 2))
        _ = try encode(action)
        let interned = codec.unpersistedSymbols()
        #expect(!interned.isEmpty)
        // The transaction rolls back; another writer stores other keys under the same ids.
        codec.forgetUnpersistedSymbols()
        try codec.learn(interned.map { CodecSymbol(id: $0.id, name: "other\($0.id)") })
        let again = try encode(action)
        // Read with only what the log now holds: the other writer's symbols and this batch's new ones.
        let reader = BinaryPayloadCodec()
        try reader.learn(interned.map { CodecSymbol(id: $0.id, name: "other\($0.id)") } + codec.unpersistedSymbols())
        #expect(try reader.decode(ShopAction.self, from: again) == action)
    }

    @Test("a decoder made before a symbol was learned decodes payloads that use it")
    func decoderAfterNewSymbols() throws {
        let writer = BinaryPayloadCodec()
        let first = try writer.encode(ShopAction.cart(.clear))
        let firstSymbols = writer.unpersistedSymbols()
        writer.markPersisted(upTo: Int64(firstSymbols.count))
        let second = try writer.encode(ShopAction.cart(.add(productID: "mug", quantity: 2)))
        let reader = BinaryPayloadCodec()
        try reader.learn(firstSymbols)
        let decode = reader.decoder(for: ShopAction.self)
        #expect(try first.withUnsafeBytes { try decode($0) } == .cart(.clear))
        // Another writer's later batch: the reader learns its symbols (as each page of a replay does).
        try reader.learn(writer.unpersistedSymbols())
        #expect(try second.withUnsafeBytes { try decode($0) } == .cart(.add(productID: "mug", quantity: 2)))
    }

    @Test("strings and keys: ASCII, other UTF-8 and invalid UTF-8 at every length around a word")
    func utf8Validation() throws {
        for length in 0...17 {
            for text in [String(repeating: "a", count: length), String(repeating: "a", count: length) + "é", "é" + String(repeating: "a", count: length)] {
                #expect(Array(text.utf8).withUnsafeBytes { ValidatedUTF8.string($0) } == text)
            }
            for position in 0..<max(1, length) {
                var bytes = Array(repeating: UInt8(ascii: "a"), count: max(1, length))
                bytes[position] = 0xFF
                #expect(bytes.withUnsafeBytes { ValidatedUTF8.string($0) } == nil, "0xFF at \(position) of \(bytes.count)")
            }
        }
    }
}
