/// What a generated ``BinaryCodable/generatedShape(_:)`` builds its type's shape with: the
/// shapes of its fields' types (generated where they have their own, probed otherwise, as
/// ``TypeShape/of(_:probing:)`` was asked), and the type's name as a probe would give it.
///
/// Only the `@BinaryCodable` macro's code calls it.
public struct TypeShapeDescriber {
    let probe: ShapeProbe

    /// The name a shape gives `type`.
    public func name<T>(of type: T.Type) -> String {
        ShapeProbe.name(of: type)
    }

    /// A field (or an enum case's value) of type `T`.
    public func field<T: Decodable>(_ name: String, _ type: T.Type) -> TypeShape.Field {
        .init(name: name, shape: probe.describe(type, wantsValue: false).shape)
    }

    /// An enum case's values, named `keys`, their types read from the case's constructor
    /// (`Self.add(productID:quantity:)`, a `(String, Int) -> Self`).
    public func fields<Root, each Value: Decodable>(_ keys: [String], _ constructor: (repeat each Value) -> Root) -> [TypeShape.Field] {
        var shapes: [TypeShape] = []
        repeat shapes.append(probe.describe((each Value).self, wantsValue: false).shape)
        return zip(keys, shapes).map { TypeShape.Field(name: $0, shape: $1) }
    }

    /// A stored property, its type inferred from the key path (for properties declared
    /// without a type annotation, `var count = 0`).
    public func field<Root, T: Decodable>(_ name: String, _ path: KeyPath<Root, T>) -> TypeShape.Field {
        field(name, T.self)
    }
}
