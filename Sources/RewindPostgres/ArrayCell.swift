import NIOCore

/// A one-dimensional array in PostgreSQL's binary format (`array_send`), its elements read in
/// place: where each starts in the cell's bytes and how long it is, `nil` for a `NULL`.
///
/// By hand, because postgres-nio decodes an array into a Swift array of values (a `Data` per
/// `bytea` element), and a replay read in place folds a page of thousands of events from one
/// row of arrays (`array_agg`) rather than a row an event: a row's cells cost the fold's
/// thread more than the event's decoding (see the bench README's read-in-place row).
///
/// Every length and count is checked against the cell's bytes: a damaged or crafted cell is an
/// error, never a read past its end.
struct ArrayCell {
    /// Each element's place in the cell's bytes (from their start), `nil` for a `NULL`.
    let elements: [Range<Int>?]

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads the header and every element's place. `expecting` is the element type the query
    /// asked for (`int8` 20, `bytea` 17, `text` 25).
    init(_ bytes: ByteBuffer, expecting type: UInt32) throws {
        var reader = bytes
        let start = reader.readerIndex
        guard let dimensions = reader.readInteger(as: Int32.self), reader.readInteger(as: Int32.self) != nil,
              let element = reader.readInteger(as: UInt32.self)
        else { throw Malformed(description: "an array cell shorter than its header") }
        guard element == type else { throw Malformed(description: "an array of type \(element), not \(type)") }
        guard dimensions != 0 else {
            elements = []
            return
        }
        guard dimensions == 1, let count = reader.readInteger(as: Int32.self), reader.readInteger(as: Int32.self) != nil else {
            throw Malformed(description: "an array of \(dimensions) dimensions, not one")
        }
        // Each element takes at least its 4-byte length: a count past that is a lie.
        guard count >= 0, Int(count) <= reader.readableBytes / 4 else {
            throw Malformed(description: "an array of \(count) elements in \(reader.readableBytes) bytes")
        }
        var places: [Range<Int>?] = []
        places.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let length = reader.readInteger(as: Int32.self) else { throw Malformed(description: "an array cut short") }
            if length == -1 {
                places.append(nil)
                continue
            }
            guard length >= 0, Int(length) <= reader.readableBytes else {
                throw Malformed(description: "an element of \(length) bytes with \(reader.readableBytes) left")
            }
            let from = reader.readerIndex - start
            places.append(from..<from + Int(length))
            reader.moveReaderIndex(forwardBy: Int(length))
        }
        guard reader.readableBytes == 0 else { throw Malformed(description: "\(reader.readableBytes) bytes after the array's last element") }
        elements = places
    }

    /// The elements as `int8`s (`NULL`s are refused).
    func integers(in bytes: ByteBuffer) throws -> [Int64] {
        try elements.map { place in
            guard let place, place.count == 8, let value = bytes.getInteger(at: bytes.readerIndex + place.lowerBound, as: Int64.self) else {
                throw Malformed(description: "an int8 element of \(place.map { "\($0.count) bytes" } ?? "NULL")")
            }
            return value
        }
    }

    /// The element at `index` as text; `nil` for a `NULL`.
    func text(_ index: Int, in bytes: ByteBuffer) -> String? {
        guard let place = elements[index] else { return nil }
        return bytes.getString(at: bytes.readerIndex + place.lowerBound, length: place.count)
    }
}
