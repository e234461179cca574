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
