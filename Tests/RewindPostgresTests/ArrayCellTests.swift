import NIOCore
@testable import RewindPostgres
import Testing

/// Arrays in PostgreSQL's binary format, read by hand: every field at its edges is an error or
/// a right answer, never a read past the cell or a trap.
@Suite("Array cells read in place")
struct ArrayCellTests {
    /// A cell: the header's fields as given, then each element (`nil` for `NULL`).
    static func cell(dimensions: Int32 = 1, flags: Int32 = 0, type: UInt32 = 17, count: Int32? = nil, lowerBound: Int32 = 1,
                     _ elements: [[UInt8]?], lengths: [Int32]? = nil, trailing: [UInt8] = []) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(dimensions)
        buffer.writeInteger(flags)
        buffer.writeInteger(type)
        if dimensions != 0 {
            buffer.writeInteger(count ?? Int32(elements.count))
            buffer.writeInteger(lowerBound)
        }
        for (index, element) in elements.enumerated() {
            buffer.writeInteger(lengths?[index] ?? element.map { Int32($0.count) } ?? -1)
            if let element { buffer.writeBytes(element) }
        }
        buffer.writeBytes(trailing)
        return buffer
    }

    @Test("elements, NULLs and empty elements are found where they are, in a cell read from any offset")
    func reads() throws {
        var buffer = ByteBuffer(bytes: [9, 9, 9])
        buffer.moveReaderIndex(forwardBy: 3)
        buffer.writeImmutableBuffer(Self.cell([[1, 2, 3], nil, [], [4]]))
        let array = try ArrayCell(buffer, expecting: 17)
        #expect(array.elements.count == 4)
        let bytes = array.elements.map { place in place.map { Array(buffer.readableBytesView.dropFirst($0.lowerBound).prefix($0.count)) } }
        #expect(bytes == [[1, 2, 3], nil, [], [4]])
        #expect(try ArrayCell(Self.cell(dimensions: 0, []), expecting: 17).elements.isEmpty)
        let integers = Self.cell(type: 20, [[0, 0, 0, 0, 0, 0, 0, 7], [255, 255, 255, 255, 255, 255, 255, 255]])
        #expect(try ArrayCell(integers, expecting: 20).integers(in: integers) == [7, -1])
        let text = Self.cell(type: 25, [Array("redacted".utf8), nil])
        let texts = try ArrayCell(text, expecting: 25)
        #expect(texts.text(0, in: text) == "redacted" && texts.text(1, in: text) == nil)
    }

    @Test("damaged or crafted cells are refused: every count, length and header field at its edges")
    func refusals() {
        let malformed: [(String, ByteBuffer, UInt32)] = [
            ("empty", ByteBuffer(), 17),
            ("header cut short", ByteBuffer(bytes: [0, 0, 0, 1, 0, 0]), 17),
            ("another element type", Self.cell(type: 25, [[1]]), 17),
            ("two dimensions", Self.cell(dimensions: 2, [[1]]), 17),
            ("negative dimensions", Self.cell(dimensions: -1, [[1]]), 17),
            ("dimensions at Int32.max", Self.cell(dimensions: .max, [[1]]), 17),
            ("count negative", Self.cell(count: -1, [[1]]), 17),
            ("count Int32.min", Self.cell(count: .min, [[1]]), 17),
            ("count Int32.max", Self.cell(count: .max, [[1]]), 17),
            ("count one more than the elements", Self.cell(count: 3, [[1], [2]]), 17),
            ("count one fewer: bytes after the last", Self.cell(count: 1, [[1], [2]]), 17),
            ("length -2", Self.cell([[1]], lengths: [-2]), 17),
            ("length Int32.min", Self.cell([[1]], lengths: [.min]), 17),
            ("length one past the end", Self.cell([[1]], lengths: [2]), 17),
            ("length Int32.max", Self.cell([[1]], lengths: [.max]), 17),
            ("trailing bytes", Self.cell([[1]], trailing: [0]), 17),
            ("dimension missing", Self.cell(dimensions: 1, [], trailing: []).getSlice(at: 0, length: 12)!, 17),
        ]
        for (what, buffer, type) in malformed {
            #expect(throws: ArrayCell.Malformed.self, "\(what)") { try ArrayCell(buffer, expecting: type) }
        }
        // int8 elements of another width, or NULL, are refused when read as integers.
        for element: [UInt8]? in [[1, 2, 3, 4], [], nil, [UInt8](repeating: 0, count: 9)] {
            let buffer = Self.cell(type: 20, [element])
            #expect(throws: ArrayCell.Malformed.self) { try ArrayCell(buffer, expecting: 20).integers(in: buffer) }
        }
    }

    @Test("every prefix of a valid cell is refused or read whole, never read past")
    func prefixes() throws {
        let whole = Self.cell([[1, 2, 3], nil, [4, 5]])
        for length in 0..<whole.readableBytes {
            let prefix = try #require(whole.getSlice(at: 0, length: length))
            #expect(throws: ArrayCell.Malformed.self, "a cell of \(length) bytes") { try ArrayCell(prefix, expecting: 17) }
        }
        #expect(try ArrayCell(whole, expecting: 17).elements.count == 3)
    }

    static func integers(_ values: [Int64]) -> ByteBuffer {
        cell(type: 20, values.map { value in withUnsafeBytes(of: value.bigEndian) { Array($0) } })
    }

    @Test("a page of events: in seq order whatever order its arrays come in; arrays of other lengths refused; NULL cells an empty page")
    func pages() throws {
        let page = try EventPage(cells: [
            Self.integers([30, 10, 20]), Self.integers([1, 2, 3]),
            Self.cell(type: 17, [[3], nil, [2]]), Self.cell(type: 25, [nil, Array("withheld".utf8), nil]),
        ])
        #expect(page.order.map { page.seqs[$0] } == [10, 20, 30])
        #expect(page.order.map { page.actionIDs[$0] } == [2, 3, 1])
        #expect(page.order.map { page.redaction($0) } == ["withheld", nil, nil])
        #expect(page.order.map { page.payloadPlaces.elements[$0] == nil } == [true, false, false])
        #expect(try EventPage(cells: [Self.integers([1, 2]), Self.integers([1, 2]), Self.cell(type: 17, [[1], [2]]), Self.cell(type: 25, [nil, nil])]).order == [0, 1])
        #expect(try EventPage(cells: [nil, nil, nil, nil]).seqs.isEmpty)
        #expect(throws: ArrayCell.Malformed.self) {
            try EventPage(cells: [Self.integers([1, 2]), Self.integers([1]), Self.cell(type: 17, [[1], [2]]), Self.cell(type: 25, [nil, nil])])
        }
        #expect(throws: ArrayCell.Malformed.self) {
            try EventPage(cells: [Self.integers([1]), Self.integers([1]), Self.cell(type: 17, [[1]])])
        }
        #expect(throws: ArrayCell.Malformed.self, "payloads in a text array") {
            try EventPage(cells: [Self.integers([1]), Self.integers([1]), Self.cell(type: 25, [[1]]), Self.cell(type: 25, [nil])])
        }
    }
}
