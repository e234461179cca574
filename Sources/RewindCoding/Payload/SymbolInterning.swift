/// A codec that interns coding keys as numbered symbols kept in the log's `symbols` table (the
/// binary codec). Not public: the log drives it, inside the transactions that store payloads.
package protocol SymbolInterning: Sendable {
    /// Symbols this codec assigned that the log file may not hold yet.
    func unpersistedSymbols() -> [CodecSymbol]
    /// Marks symbols up to `id` as stored in the log file.
    func markPersisted(upTo id: Int64)
    /// Adds symbols read from the log file.
    ///
    /// - Throws: ``SymbolTableDamage`` when the file gives a known id another name, or ids no
    ///   writer would have made.
    func learn(_ symbols: [CodecSymbol]) throws
    /// Forgets symbols assigned after the last stored one (their transaction rolled back).
    func forgetUnpersistedSymbols()
}

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
