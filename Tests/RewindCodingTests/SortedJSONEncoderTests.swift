import Foundation
import Rewind
import RewindCoding
import RewindExamples
import Testing

/// The JSON codec encodes with its own encoder: every payload must be the bytes Foundation's
/// `JSONEncoder` (`.sortedKeys`, default strategies) writes, so that logs recorded before and
/// after read, share and compare alike.
@Suite("JSON codec's encoder")
struct SortedJSONEncoderTests {
    private static let foundation: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// Encoders that write finished values as they go from the first node, the second, and
    /// the codec's own (a large value's way, exercised on every value).
    private static var writingAsTheyGo: [SortedJSONEncoder] { [SortedJSONEncoder(compactionThreshold: 0), SortedJSONEncoder(compactionThreshold: 1)] }

    private func expectFoundationBytes<Value: Encodable>(
        _ value: Value, _ comment: @autoclosure () -> String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let ours = String(decoding: try JSONPayloadCodec().encode(value), as: UTF8.self)
        let foundation = String(decoding: try Self.foundation.encode(value), as: UTF8.self)
        #expect(ours == foundation, "\(comment())", sourceLocation: sourceLocation)
        for encoder in Self.writingAsTheyGo {
            let written = String(decoding: try encoder.encode(value), as: UTF8.self)
            #expect(written == foundation, "\(comment()), written as it goes", sourceLocation: sourceLocation)
        }
    }

    @Test("every action of a shop session, and its state every 50 actions, encode to Foundation's bytes and decode back")
    func shopSession() async throws {
        let session = await Shop.sessionActions(count: 3_000, seed: 11)
        // The writer's way: one encoder for a whole batch, its tree reused from value to value.
        let batch = JSONPayloadCodec().encoder(for: ShopAction.self)
        var state = ShopState()
        for (index, dispatched) in session.enumerated() {
            try expectFoundationBytes(dispatched.action, "action \(index)")
            #expect(try batch(dispatched.action) == Self.foundation.encode(dispatched.action), "action \(index), batch encoder")
            Shop.reducer(&state, dispatched.action)
            if index % 50 == 0 { try expectFoundationBytes(state, "state after action \(index)") }
        }
        try expectFoundationBytes(state)
        let codec = JSONPayloadCodec()
        #expect(try codec.decode(ShopState.self, from: codec.encode(state)) == state)
    }

    @Test("every action and state of a todo session encode to Foundation's bytes")
    func todoSession() async throws {
        var state = TodoState()
        for dispatched in await Todo.sessionActions(count: 1_000, seed: 5) {
            try expectFoundationBytes(dispatched.action)
            Todo.reducer(&state, dispatched.action)
            try expectFoundationBytes(state)
        }
    }

    @Test("strings: each ASCII character (escapes, controls, slashes), non-ASCII, emoji and line separators")
    func strings() throws {
        for byte in 0..<0x80 {
            let scalar = String(UnicodeScalar(UInt8(byte)))
            try expectFoundationBytes(scalar, "U+\(String(byte, radix: 16))")
            try expectFoundationBytes(["k" + scalar + "k": "v" + scalar], "U+\(String(byte, radix: 16)) in a key")
        }
        try expectFoundationBytes(["", "é", "e\u{301}", "😀", "\u{2028}\u{2029}", "\u{FEFF}", "a/b\\c\"d", String(repeating: "ÿ", count: 300)])
    }

    @Test("numbers: every integer type's extremes, and doubles and floats of every magnitude")
    func numbers() throws {
        try expectFoundationBytes([Int.min, -1, 0, 1, Int.max])
        try expectFoundationBytes([Int8.min, Int8.max])
        try expectFoundationBytes([Int16.min, Int16.max])
        try expectFoundationBytes([Int32.min, Int32.max])
        try expectFoundationBytes([Int64.min, Int64.max])
        try expectFoundationBytes([UInt.max, UInt(0)])
        try expectFoundationBytes([UInt8.max, UInt8(0)])
        try expectFoundationBytes([UInt16.max])
        try expectFoundationBytes([UInt32.max])
        try expectFoundationBytes([UInt64.max])
        var doubles: [Double] = [
            0, -0.0, 1, -1, 0.1, 2.5, 1e15, 1e16, 1e21, 1e22, 1e-5, 1e-7, 123_456_789.125, 1e300,
            .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, .pi, -.ulpOfOne,
            Double(Int64.max), Double(9_007_199_254_740_992).nextUp,
        ]
        var random = SeededRandom(seed: 1)
        while doubles.count < 2_000 {
            let candidate = Double(bitPattern: random.next())
            if candidate.isFinite { doubles.append(candidate) }
        }
        try expectFoundationBytes(doubles)
        var floats: [Float] = [0, -0.0, 1, 0.1, 3.4e38, .leastNonzeroMagnitude, .greatestFiniteMagnitude, Float(16_777_216).nextUp]
        while floats.count < 2_000 {
            let candidate = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            if candidate.isFinite { floats.append(candidate) }
        }
        try expectFoundationBytes(floats)
        try expectFoundationBytes(2.5)
        try expectFoundationBytes(Float(1))
        try expectFoundationBytes(Optional<Int>.none)
        try expectFoundationBytes(true)
    }

    @Test("keys: sorted as Foundation sorts them, for ASCII, non-ASCII and integer keys")
    func keys() throws {
        // Decomposed and compatibility characters too: Foundation orders keys by their bytes,
        // not normalized as Swift's `<` compares strings.
        let alphabet = ["", "A", "B", "Z", "a", "b", "z", "_", "-", "0", "1", "9", "é", "É", "ß", "Å", "ø", "😀", "中", " ", "~",
                        "e\u{301}", "\u{212B}", "\u{FF21}", "\u{0}", "\u{7F}"]
        var random = SeededRandom(seed: 2)
        for round in 0..<200 {
            var dictionary: [String: Int] = [:]
            for value in 0..<random.int(in: 0...12) {
                let key = (0..<random.int(in: 0...4)).map { _ in random.element(of: alphabet)! }.joined()
                dictionary[key] = value
            }
            try expectFoundationBytes(dictionary, "round \(round)")
        }
        try expectFoundationBytes([3: "x", 1: "y", 20: "z", -4: "w"])
        // Keys equal as Swift compares strings but written differently are one member, as in
        // Foundation's dictionary of members: the first key's text, the last value.
        for keys in [["é", "e\u{301}"], ["e\u{301}", "é"], ["e\u{301}", "f", "é", "e"], ["Å", "\u{212B}", "A\u{30A}", "B"]] {
            let members = keys.map { (key: $0, value: [[Int]]?.none) }
            try expectFoundationBytes(Ordered(members: members), "\(keys.map { Array($0.unicodeScalars) })")
            try expectFoundationBytes(Ordered(members: members.enumerated().map { ($1.key, [[$0]]) }), "\(keys.map { Array($0.unicodeScalars) }), written as they go")
        }
        try expectFoundationBytes([[String: [Int: Bool]]()])
    }

    @Test("Foundation's special types: dates, data, URLs, decimals, and optionals at every depth")
    func specialTypes() throws {
        try expectFoundationBytes([Date(timeIntervalSinceReferenceDate: 12.5), Date(timeIntervalSince1970: 0), Date.distantFuture])
        try expectFoundationBytes([Data(), Data([1, 2, 3]), Data(repeating: 0xFF, count: 1_000)])
        try expectFoundationBytes([URL(string: "https://example.com/a/b?c=d&e=f#g")!, URL(fileURLWithPath: "/tmp/x y")])
        try expectFoundationBytes([Decimal(string: "12.50")!, Decimal(0), Decimal(string: "-0.000001")!, Decimal(string: "123456789012345678901234567890")!])
        try expectFoundationBytes(["date": Date(timeIntervalSinceReferenceDate: -1)])
        let nested: [Int??] = [1, .some(nil), nil]
        try expectFoundationBytes(nested)
        struct Record: Codable { var name: String?; var data: Data?; var url: URL?; var amount: Decimal?; var at: Date? }
        try expectFoundationBytes(Record(name: nil, data: Data([9]), url: nil, amount: Decimal(string: "1.5"), at: nil))
        try expectFoundationBytes([Record(name: "n", data: nil, url: URL(string: "a/b"), amount: nil, at: Date(timeIntervalSinceReferenceDate: 3))])
    }

    /// Uses every container call a hand-written `encode(to:)` can make.
    private struct HandWritten: Encodable {
        enum Keys: String, CodingKey { case a, b, nested, list, twice, empty, emptyList, unused }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .b)
            try container.encode("first", forKey: .twice)
            try container.encode("second", forKey: .twice)
            var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            try nested.encodeNil(forKey: .a)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode(1.5)
            try list.encodeNil()
            var inner = list.nestedContainer(keyedBy: Keys.self)
            try inner.encode(false, forKey: .a)
            var innerList = list.nestedUnkeyedContainer()
            try innerList.encode(UInt8(7))
            try Int16(-3).encode(to: list.superEncoder())
            _ = container.nestedContainer(keyedBy: Keys.self, forKey: .empty)
            _ = container.nestedUnkeyedContainer(forKey: .emptyList)
            try "from super".encode(to: container.superEncoder())
            let later = container.superEncoder(forKey: .a)
            try container.encode(2, forKey: .unused)
            var single = later.singleValueContainer()
            try single.encode([1, 2])
            // A second request for the same keyed container adds to it.
            var again = encoder.container(keyedBy: Keys.self)
            try again.encode(3, forKey: .unused)
        }
    }

    @Test("a hand-written encode(to:): nested containers, super encoders used late, a key encoded twice, empty containers")
    func handWritten() throws {
        try expectFoundationBytes(HandWritten())
        try expectFoundationBytes([HandWritten()])
    }

    private struct EncodesNothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    @Test("what Foundation refuses is refused: non-finite numbers anywhere, a top-level value that encodes nothing")
    func refusals() throws {
        let codec = JSONPayloadCodec()
        for value in [Double.nan, .infinity, -.infinity] {
            #expect(throws: EncodingError.self) { try codec.encode(value) }
            #expect(throws: EncodingError.self) { try codec.encode(["x": [value]]) }
            #expect(throws: EncodingError.self) { try codec.encode([Float(value)]) }
        }
        #expect(throws: EncodingError.self) { try codec.encode(EncodesNothing()) }
        // Nested, a value that encodes nothing is an empty object, as in Foundation.
        try expectFoundationBytes(["x": EncodesNothing()])
    }

    @Test("an encoder reused for a batch encodes the next value whole after one it refused")
    func reuseAfterRefusal() throws {
        let batch = JSONPayloadCodec().encoder(for: [String: [Double]].self)
        #expect(throws: EncodingError.self) { try batch(["a": [1, 2], "b": [.nan], "c": [3]]) }
        let next: [String: [Double]] = ["x": [0.5], "y": []]
        #expect(try batch(next) == Self.foundation.encode(next))
    }

    @Test("a refused number's error names where it is")
    func refusalPath() throws {
        do {
            _ = try JSONPayloadCodec().encode(["prices": [1.0, .nan]])
            Issue.record("NaN was encoded")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["prices", "Index 1"])
        }
        // After elements already written and merged, the index still counts each of them.
        for encoder in Self.writingAsTheyGo {
            do {
                _ = try encoder.encode(["prices": [[1.0], [2.0], [3.0, .nan]]])
                Issue.record("NaN was encoded")
            } catch let EncodingError.invalidValue(_, context) {
                #expect(context.codingPath.map(\.stringValue) == ["prices", "Index 2", "Index 1"])
            }
        }
    }

    @Test("a large value is written as it goes: Foundation's bytes, an unkeyed container's count, a batch after it")
    func largeValue() async throws {
        var state = ShopState()
        for dispatched in await Shop.sessionActions(count: 20_000, seed: 3) { Shop.reducer(&state, dispatched.action) }
        // Large enough that the codec's own encoder writes it as it goes.
        let nodes = nodeCount(try JSONSerialization.jsonObject(with: Self.foundation.encode(state)))
        #expect(nodes > 4_096 * 4, "\(nodes) nodes")
        let encoder = SortedJSONEncoder()
        #expect(try encoder.encode(state) == Self.foundation.encode(state))
        // The next, small value is whole, from a tree and buffers emptied.
        #expect(try encoder.encode(state.cart) == Self.foundation.encode(state.cart))
        #expect(try encoder.encode(state) == Self.foundation.encode(state))
        // `count` of an unkeyed container counts merged elements one by one.
        struct Counted: Encodable {
            var items: [[Int]]
            func encode(to encoder: any Encoder) throws {
                var list = encoder.unkeyedContainer()
                for item in items { try list.encode(item) }
                try list.encode(list.count)
            }
        }
        let counted = Counted(items: (0..<50).map { [$0] })
        for encoder in Self.writingAsTheyGo {
            #expect(try encoder.encode(counted) == Self.foundation.encode(counted))
        }
    }
}

extension SortedJSONEncoderTests {
    /// Members encoded in the order given, each a list of lists (written as it goes) or a string.
    private struct Ordered: Encodable {
        var members: [(key: String, value: [[Int]]?)]
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in members {
                if let value { try container.encode(value, forKey: Key(stringValue: key)) } else { try container.encode("inline \(key)", forKey: Key(stringValue: key)) }
            }
        }
    }

    @Test("a container written over its children's bytes, the largest written one left in place, in whatever order they were written: Foundation's bytes")
    func inPlace() throws {
        let list = (0..<30).map { [$0, -$0] }
        let values: [Ordered] = [
            // Written members in key order, strings between them.
            Ordered(members: [("a", list), ("b", nil), ("c", list), ("d", nil)]),
            // Written members out of key order: one stays, the other moves through scratch.
            Ordered(members: [("z", list), ("m", nil), ("a", list)]),
            // A key encoded twice, the first written: the last one is Foundation's.
            Ordered(members: [("k", list), ("k", nil), ("j", list)]),
            Ordered(members: [("k", nil), ("k", list)]),
            // Nothing written, and nothing at all.
            Ordered(members: [("b", nil), ("a", nil)]),
            Ordered(members: []),
        ]
        for value in values {
            try expectFoundationBytes(value, "\(value.members.map(\.key))")
            try expectFoundationBytes([value, value], "\(value.members.map(\.key)) twice in a list")
        }
        // A list whose nested list (never finished as a whole) holds written elements: their bytes
        // are copied through scratch around the list's own written elements.
        struct Nested: Encodable {
            func encode(to encoder: any Encoder) throws {
                var outer = encoder.unkeyedContainer()
                try outer.encode([1, 2])
                var inner = outer.nestedUnkeyedContainer()
                try inner.encode([3])
                try inner.encode([4, 5])
                try outer.encode([6])
            }
        }
        try expectFoundationBytes(Nested())
        try expectFoundationBytes(["x": Nested()])
        // Dictionaries encode their keys in hash order: written members in any order.
        try expectFoundationBytes(Dictionary(uniqueKeysWithValues: (0..<40).map { ("key \($0)", list) }))
    }
}

/// How many JSON values a `JSONSerialization` result holds, itself included.
private func nodeCount(_ value: Any) -> Int {
    switch value {
    case let array as [Any]: 1 + array.reduce(0) { $0 + nodeCount($1) }
    case let object as [String: Any]: 1 + object.values.reduce(0) { $0 + nodeCount($1) }
    default: 1
    }
}
