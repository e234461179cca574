/// The codecs a log can use, by name.
///
/// It holds a way to make each codec: every `EventLog` makes its own instances, because a
/// codec with symbols (the binary one) keeps a table that belongs to one log file.
public struct PayloadCodecs: Sendable {
    private let makers: [String: @Sendable () -> any PayloadCodec]
    private let instances: [String: any PayloadCodec]

    /// A set of codecs, each made by a function.
    ///
    /// - Parameter makers: Functions making the codecs; later ones win on a name clash.
    public init(_ makers: [@Sendable () -> any PayloadCodec]) {
        var byName: [String: @Sendable () -> any PayloadCodec] = [:]
        for make in makers { byName[make().name] = make }
        self.makers = byName
        instances = byName.mapValues { $0() }
    }

    /// The codecs Rewind ships: JSON and binary.
    public static let standard = PayloadCodecs([{ JSONPayloadCodec() }, { BinaryPayloadCodec() }])

    /// The codec with `name`, or `nil`.
    public subscript(name: String) -> (any PayloadCodec)? {
        instances[name]
    }

    /// Every codec instance.
    package var all: [any PayloadCodec] { Array(instances.values) }

    /// The codecs that keep symbols in the log.
    package var interning: [any SymbolInterning] { instances.values.compactMap { $0 as? any SymbolInterning } }

    /// Fresh instances of the same codecs, for one log.
    package func fresh() -> PayloadCodecs {
        PayloadCodecs(Array(makers.values))
    }
}
