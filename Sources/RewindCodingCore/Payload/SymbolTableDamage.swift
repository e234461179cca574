/// Symbols in the log file that cannot be right, never silently accepted: payloads encoded with
/// one name would decode with another's.
package enum SymbolTableDamage: Error, CustomStringConvertible {
    /// The file names a known id differently from this connection's table.
    case conflict(id: Int64, inFile: String, known: String)
    /// An id no writer makes: below 1, or far past the ids before it (writers number densely).
    case outOfRange(id: Int64)

    package var description: String {
        switch self {
        case let .conflict(id, inFile, known): "symbol \(id) is '\(inFile)' in the log but '\(known)' in this connection's table"
        case let .outOfRange(id): "symbol id \(id) is out of range"
        }
    }
}
