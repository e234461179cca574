/// A symbol the binary codec interned: a coding key's string and its number in one log.
public struct CodecSymbol: Sendable, Hashable {
    /// The number payloads use (from 1).
    public var id: Int64
    /// The key's string.
    public var name: String

    /// Creates a symbol.
    public init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
}
