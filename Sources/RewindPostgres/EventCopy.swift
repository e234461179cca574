import Foundation
import NIOCore

/// Rows of `rewind.events` in `COPY`'s text format, for ``PostgresLog/copy(rows:_:)``: how pushes
/// and recorders write events.
///
/// `COPY … FROM STDIN` is the server's own fastest way in. Pushes wrote multi-row `INSERT`s with
/// a parameter per column before, at a quarter of `COPY`'s rate for the same rows; by `COPY`
/// they reach about 0.6 of it (the `postgres` bench workload, with the batching around it).
/// postgres-nio speaks `COPY`'s text format only, so the rows are formatted here, by
/// hand: integers in decimal, times as the shortest text that reads back as the same double, a
/// payload as `\x` and hex digits, text with `COPY`'s escapes, `\N` for a missing value.
struct EventCopy {
    /// The columns each row gives, in order.
    static let columns = [
        "session_id", "seq", "origin_seq", "time", "action_id", "payload", "source_id", "info", "redaction", "cause_distance", "root_distance",
    ]

    private(set) var buffer = ByteBuffer()

    init(reservingBytes bytes: Int = 0) {
        buffer.reserveCapacity(bytes)
    }

    /// Appends one event's row.
    mutating func append(
        session: Int64, seq: Int64, originSeq: Int64?, time: Double, action: Int64, payload: Data?, source: Int64,
        info: String?, redaction: String?, cause: Int64?, root: Int64?
    ) {
        write(session)
        tab()
        write(seq)
        tab()
        write(originSeq)
        tab()
        write(time)
        tab()
        write(action)
        tab()
        write(payload)
        tab()
        write(source)
        tab()
        write(info)
        tab()
        write(redaction)
        tab()
        write(cause)
        tab()
        write(root)
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    // MARK: - Fields

    private mutating func tab() {
        buffer.writeInteger(UInt8(ascii: "\t"))
    }

    private mutating func null() {
        buffer.writeInteger(UInt8(ascii: "\\"))
        buffer.writeInteger(UInt8(ascii: "N"))
    }

    private mutating func write(_ value: Int64?) {
        guard let value else { return null() }
        write(value)
    }

    private mutating func write(_ value: Int64) {
        // Digits from the end, straight into the buffer's memory: no String per field.
        var magnitude = value.magnitude
        var digits = 1
        while magnitude >= 10 {
            magnitude /= 10
            digits += 1
        }
        let length = digits + (value < 0 ? 1 : 0)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { bytes in
            var magnitude = value.magnitude
            var index = length
            repeat {
                index -= 1
                bytes[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { bytes[0] = UInt8(ascii: "-") }
            return length
        }
    }

    private mutating func write(_ value: Double) {
        // Swift's description is the shortest decimal that reads back as the same double, and
        // the server reads it with `strtod`: the same bits arrive. Its spellings of the
        // non-finite values are not the server's.
        if value.isNaN {
            buffer.writeStaticString("NaN")
        } else if value.isInfinite {
            buffer.writeStaticString(value < 0 ? "-Infinity" : "Infinity")
        } else {
            buffer.writeString(value.description)
        }
    }

    private mutating func write(_ value: Data?) {
        guard let value else { return null() }
        // `\x` then hex digits, bytea's hex format; its backslash doubled, as `COPY` reads `\\`
        // as one. Written in one pass into the buffer's memory: per byte through `ByteBuffer`'s
        // own calls, each with an exclusivity check, it led a push's profile.
        let length = 3 + value.count * 2
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { bytes in
            bytes[0] = UInt8(ascii: "\\")
            bytes[1] = UInt8(ascii: "\\")
            bytes[2] = UInt8(ascii: "x")
            var index = 3
            value.withUnsafeBytes { source in
                for byte in source {
                    bytes[index] = Self.hex(byte >> 4)
                    bytes[index + 1] = Self.hex(byte & 0x0f)
                    index += 2
                }
            }
            return length
        }
    }

    /// A nibble's lowercase hex digit, from literals: `UInt8(ascii:)`, called twice a byte of
    /// every payload, is a call of its own in a debug build.
    private static func hex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 &+ nibble : 0x57 &+ nibble  // "0" + n, "a" + (n - 10)
    }

    private mutating func write(_ value: String?) {
        guard let value else { return null() }
        // `COPY`'s text format gives a backslash, a tab, a line feed and a carriage return a
        // meaning of their own; everything else goes as it is (UTF-8, the store's encoding).
        var plain = value.utf8.startIndex
        let utf8 = value.utf8
        var index = plain
        while index != utf8.endIndex {
            // Literals rather than `UInt8(ascii:)`, for every byte of every string (see `hex`).
            let escaped: UInt8? = switch utf8[index] {
            case 0x5C: 0x5C  // \ as \\
            case 0x09: 0x74  // a tab as \t
            case 0x0A: 0x6E  // a line feed as \n
            case 0x0D: 0x72  // a carriage return as \r
            default: nil
            }
            if let escaped {
                buffer.writeBytes(utf8[plain..<index])
                buffer.writeInteger(UInt8(ascii: "\\"))
                buffer.writeInteger(escaped)
                plain = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        buffer.writeBytes(utf8[plain..<index])
    }
}
