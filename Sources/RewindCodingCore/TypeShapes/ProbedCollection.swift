import Foundation

/// The standard containers, described by their element types without running their decoding
/// (which would loop over the probe's placeholder elements).
protocol ProbedCollection {
    static func probeShape(_ probe: ShapeProbe) -> (shape: TypeShape, value: Any)
    static var emptyValue: Any { get }
}

extension Optional: ProbedCollection where Wrapped: Decodable {
    static func probeShape(_ probe: ShapeProbe) -> (shape: TypeShape, value: Any) {
        (.optional(probe.describe(Wrapped.self, wantsValue: false).shape), emptyValue)
    }

    static var emptyValue: Any { Wrapped?.none as Any }
}

extension Array: ProbedCollection where Element: Decodable {
    static func probeShape(_ probe: ShapeProbe) -> (shape: TypeShape, value: Any) {
        (.list(probe.describe(Element.self, wantsValue: false).shape), emptyValue)
    }

    static var emptyValue: Any { [Element]() }
}

extension Set: ProbedCollection where Element: Decodable {
    static func probeShape(_ probe: ShapeProbe) -> (shape: TypeShape, value: Any) {
        (.list(probe.describe(Element.self, wantsValue: false).shape), emptyValue)
    }

    static var emptyValue: Any { Set<Element>() }
}

extension Dictionary: ProbedCollection where Key: Decodable, Value: Decodable {
    static func probeShape(_ probe: ShapeProbe) -> (shape: TypeShape, value: Any) {
        (.map(key: probe.describe(Key.self, wantsValue: false).shape, value: probe.describe(Value.self, wantsValue: false).shape), emptyValue)
    }

    static var emptyValue: Any { [Key: Value]() }
}

/// The values the probe answers for leaves, by type, with their shapes.
enum Leaves {
    static func shape<T>(of type: T.Type) -> (shape: TypeShape, value: T?)? {
        guard let (name, value) = table[ObjectIdentifier(type)] else { return nil }
        return (.value(name), value as? T)
    }

    // Date, UUID and URL decode through a value they validate: their placeholders are real.
    nonisolated(unsafe) private static let table: [ObjectIdentifier: (String, Any)] = [
        ObjectIdentifier(Bool.self): ("Bool", false), ObjectIdentifier(String.self): ("String", ""),
        ObjectIdentifier(Double.self): ("Double", 0.0), ObjectIdentifier(Float.self): ("Float", Float(0)),
        ObjectIdentifier(Int.self): ("Int", 0), ObjectIdentifier(Int8.self): ("Int8", Int8(0)),
        ObjectIdentifier(Int16.self): ("Int16", Int16(0)), ObjectIdentifier(Int32.self): ("Int32", Int32(0)),
        ObjectIdentifier(Int64.self): ("Int64", Int64(0)), ObjectIdentifier(UInt.self): ("UInt", UInt(0)),
        ObjectIdentifier(UInt8.self): ("UInt8", UInt8(0)), ObjectIdentifier(UInt16.self): ("UInt16", UInt16(0)),
        ObjectIdentifier(UInt32.self): ("UInt32", UInt32(0)), ObjectIdentifier(UInt64.self): ("UInt64", UInt64(0)),
        ObjectIdentifier(Date.self): ("Date", Date(timeIntervalSince1970: 0)),
        ObjectIdentifier(UUID.self): ("UUID", UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
        ObjectIdentifier(Data.self): ("Data", Data()), ObjectIdentifier(URL.self): ("URL", URL(string: "about:blank")!),
        ObjectIdentifier(Decimal.self): ("Decimal", Decimal(0)),
    ]
}
