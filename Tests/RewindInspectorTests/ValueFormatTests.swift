@testable import RewindCLI
import Testing

/// Which whole numbers a ``ValueFormat`` applies to, and the texts it makes.
@Suite("value formats")
struct ValueFormatTests {
    @Test("a key applies anywhere; a dotted path from the root, with * for one key or index; the first format wins")
    func applies() throws {
        let state = try JSONValue(encoding: Shop(total: 1_250, lines: [.init(price: 5, count: 2)], nested: .init(total: 7)))
        let texts = [
            ValueFormat("lines.*.price") { "line \($0)" },
            ValueFormat("total") { "€\($0)" },
            ValueFormat("total", "count") { "never \($0)" },
        ].texts(in: state)
        #expect(texts == ["total": "€1250", "nested.total": "€7", "lines.0.price": "line 5", "lines.0.count": "never 2"])
        #expect([ValueFormat]().texts(in: state).isEmpty)
        // A path longer or shorter than the field's is not it; a string or a fraction is never formatted.
        #expect(!ValueFormat("lines.price") { _ in "" }.applies(to: ["lines", "0", "price"]))
        #expect(!ValueFormat("*.price") { _ in "" }.applies(to: ["lines", "0", "price"]))
        #expect([ValueFormat("name", "ratio") { _ in "x" }].texts(in: try JSONValue(encoding: ["name": "a"])).isEmpty)
        #expect([ValueFormat("ratio") { _ in "x" }].texts(in: try JSONValue(encoding: ["ratio": 0.5])).isEmpty)
    }

    private struct Shop: Encodable {
        struct Line: Encodable { var price: Int; var count: Int }
        struct Nested: Encodable { var total: Int }
        var total: Int
        var lines: [Line]
        var nested: Nested
    }
}
