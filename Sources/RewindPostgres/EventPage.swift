import NIOCore
import PostgresNIO

/// A page of a session's events as a replay read in place gets it: one row of four arrays
/// (seqs, case ids, payloads, redactions), an element an event, read in place (``ArrayCell``).
struct EventPage {
    let seqs: [Int64]
    let actionIDs: [Int64]
    /// The payloads' array cell, and each payload's place in it.
    let payloads: ByteBuffer
    let payloadPlaces: ArrayCell
    private let redactions: ByteBuffer
    private let redactionPlaces: ArrayCell
    /// The events' indices in seq order: the arrays' own order, as the query's subquery gives
    /// it, unless a server gave them otherwise (SQL does not promise an aggregate keeps it).
    let order: [Int]

    /// The page in `rows`: one row, whose cells are all `NULL` when the page is empty.
    init(_ rows: [PostgresRow]) throws {
        guard rows.count == 1, let row = rows.first else { throw ArrayCell.Malformed(description: "a page of \(rows.count) rows, not one") }
        let cells = Array(row)
        guard cells.allSatisfy({ $0.format == .binary }) else { throw ArrayCell.Malformed(description: "a page's column in text") }
        try self.init(cells: cells.map(\.bytes))
    }

    /// The page in its four cells, in binary format: seqs, case ids, payloads, redactions.
    init(cells: [ByteBuffer?]) throws {
        guard cells.count == 4 else { throw ArrayCell.Malformed(description: "a page of \(cells.count) columns, not four") }
        /// A `NULL` cell is the aggregate of no rows: an empty array.
        func array(_ index: Int, of type: UInt32) throws -> (ByteBuffer, ArrayCell) {
            let bytes = cells[index] ?? ByteBuffer(bytes: [0, 0, 0, 0, 0, 0, 0, 0] + withUnsafeBytes(of: type.bigEndian) { Array($0) })
            return (bytes, try ArrayCell(bytes, expecting: type))
        }
        let (seqBytes, seqCell) = try array(0, of: 20), (idBytes, idCell) = try array(1, of: 20)
        (payloads, payloadPlaces) = try array(2, of: 17)
        (redactions, redactionPlaces) = try array(3, of: 25)
        let seqs = try seqCell.integers(in: seqBytes)
        self.seqs = seqs
        actionIDs = try idCell.integers(in: idBytes)
        guard actionIDs.count == seqs.count, payloadPlaces.elements.count == seqs.count, redactionPlaces.elements.count == seqs.count else {
            throw ArrayCell.Malformed(description: "a page whose arrays differ in length")
        }
        let inOrder = zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }
        order = inOrder ? Array(seqs.indices) : seqs.indices.sorted { seqs[$0] < seqs[$1] }
    }

    /// Why event `index` has no payload, if it has none.
    func redaction(_ index: Int) -> String? {
        redactionPlaces.text(index, in: redactions)
    }
}
