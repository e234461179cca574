import Foundation
import RewindCoding
@testable import RewindCodingCore
import RewindExamples
import Testing

/// Types as an app would write them, in pairs where a later build changed one.
private enum V1 {
    struct Line: Codable { var id: String; var price: Int; var note: String? }
    enum Action: Codable { case add(Line), remove(id: String), clear }
}

private enum V2Reordered {
    struct Line: Codable { var note: String?; var price: Int; var id: String }
    enum Action: Codable { case clear, remove(id: String), add(Line) }
}

private enum V2Renamed {
    struct Item: Codable { var id: String; var price: Int; var note: String? }
    enum Command: Codable { case add(Item), remove(id: String), clear }
}

private enum V2CaseAdded {
    struct Line: Codable { var id: String; var price: Int; var note: String? }
    enum Action: Codable { case add(Line), remove(id: String), clear, applyCoupon(code: String) }
}

private enum V2FieldRenamed {
    struct Line: Codable { var id: String; var unitPrice: Int; var note: String? }
    enum Action: Codable { case add(Line), remove(id: String), clear }
}

private enum V2TypeChanged {
    struct Line: Codable { var id: String; var price: Decimal; var note: String? }
    enum Action: Codable { case add(Line), remove(id: String), clear }
}

private enum V2OptionalAdded {
    struct Line: Codable { var id: String; var price: Int; var note: String?; var gift: Bool? }
    enum Action: Codable { case add(Line), remove(id: String), clear }
}

private enum V2CaseRemoved {
    struct Line: Codable { var id: String; var price: Int; var note: String? }
    enum Action: Codable { case add(Line), remove(id: String) }
}

private enum V2DefaultAdded {
    struct Line: Codable { var id: String; var price: Int; var note: String?; var quantity: Int = 1 }
    enum Action: Codable { case add(Line), remove(id: String), clear }
}

private enum V2Loosened {
    struct Line: Codable { var id: String; var price: Int?; var note: String? }
    enum Action: Codable { case add(Line), remove(id: String?), clear }
}

private enum V2Indirect {
    struct Line: Codable { var id: String; var price: Int; var note: String? }
    indirect enum Action: Codable { case add(Line), remove(id: String), clear }
}

private enum V2Many {
    struct Line: Codable { var id: Int; var cost: Int; var note: String? }
    enum Action: Codable { case add(Line), remove(id: String, reason: String?), reset }
}

private indirect enum Tree: Codable { case leaf(Int), node(Tree, Tree) }
private indirect enum TreeV1: Codable { case leaf(Int), node(left: TreeV1, right: TreeV1) }
private struct Folder: Codable { var name: String; var children: [Folder] }
private final class Link: Codable { var value = 0; var next: Link? }

private enum Colour: String, Codable, CaseIterable { case red, green = "GREEN" }
private enum Size: String, Codable { case small, large }
private enum Level: Int, Codable { case low = 1, high = 5 }

private struct Cents: Codable {
    var value: Int
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

/// Rejects the probe's placeholder 0.
private struct Positive: Codable {
    var value: Int
    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Int.self)
        guard value > 0 else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not positive")) }
    }
}

private struct Mixed: Codable {
    var id: UUID
    var at: Date
    var bytes: Data
    var link: URL
    var amount: Decimal
    var tags: Set<String>
    var counts: [String: Int]
    var nested: [[Int?]]
    var colour: Colour
    var size: Size
    var level: Level
    var cents: Cents
    var small: Int8
}

/// Decodes by listing its keys, which are not an enum.
private struct Listing: Decodable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    var names: [String]
    init(from decoder: any Decoder) throws {
        names = try decoder.container(keyedBy: Key.self).allKeys.map(\.stringValue)
    }
}

private struct Guarded: Codable {
    var first: String
    var positive: Positive
    var after: Int
}

/// Types whose shapes the macro writes, each kind of declaration it handles.
private enum Generated {
    @BinaryCodable
    enum Action: Codable {
        case add(Line), remove(id: String, _ count: Int?), clear
        indirect case batch([Action])
        case `default`(kind: Kind)
        case counted(Counted)
    }

    @BinaryCodable
    struct Line: Codable {
        var id: String
        var price = 0
        var note: String?
        var tags: [String: [Int]]
        var total: Int { price }
    }

    @BinaryCodable
    enum Kind: String, Codable { case plain, `default` = "DEFAULT" }

    /// Not generated: a wrapper decoded from a single value.
    struct Counted: Codable {
        var value: Int
    }

    /// Generated, holding a type that is not, used by one test only.
    @BinaryCodable
    struct Holder: Codable {
        var name: String
        var watched: Watched
    }

    /// Not generated, and counts the runs of its decoding.
    struct Watched: Codable {
        nonisolated(unsafe) static var decodings = 0
        var value: Int
        init(from decoder: any Decoder) throws {
            Self.decodings += 1
            value = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .value)
        }
    }
}

@Suite("Type shapes")
struct TypeShapeTests {
    @Test("structs, enums with and without values, optionals, and the leaves Foundation codes")
    func shapes() {
        let shape = TypeShape.of(V1.Action.self)
        #expect(shape.definitions == [
            "Action = add(_0: Line) | remove(id: String) | clear",
            "Line = { id: String, price: Int, note: String? }",
        ])
        #expect(TypeShape.of(Mixed.self).definitions == [
            "Mixed = { id: UUID, at: Date, bytes: Data, link: URL, amount: Decimal, tags: [String], counts: [String: Int], nested: [[Int?]], "
                + "colour: Colour, size: Size, level: Level, cents: Int, small: Int8 }",
            "Colour = red | GREEN",
            "Size = small | large",
            "Level = 1 | 5",
        ])
    }

    @Test("the example apps' actions and states are seen whole")
    func examples() {
        let shop = TypeShape.of(ShopAction.self).definitions
        #expect(shop.first == "ShopAction = catalogue(_0: CatalogueAction) | cart(_0: CartAction) | checkout(_0: CheckoutAction)")
        #expect(shop.contains("CartAction = add(productID: String, quantity: Int) | setQuantity(productID: String, quantity: Int) | remove(productID: String) | applyDiscount(code: String) | removeDiscount | clear"))
        #expect(TypeShape.of(ShopState.self).definitions.contains("CartLine = { productID: String, name: String, unitPrice: Int, quantity: Int }"))
        #expect(TypeShape.of(TodoState.self).definitions.contains("TodoFilter = all | active | completed"))
        #expect(TypeShape.of(TodoAction.self).canonical.contains("move(id:UUID,index:Int,toList:UUID)"))
    }

    @Test("recursive types: a second occurrence is a reference, whatever the path to it")
    func recursion() {
        #expect(TypeShape.of(Tree.self).definitions == ["Tree = leaf(_0: Int) | node(_0: Tree, _1: Tree)"])
        #expect(TypeShape.of(Tree.self).canonical == "<leaf(_0:Int)|node(_0:^,_1:^)>")
        #expect(TypeShape.of(Folder.self).definitions == ["Folder = { name: String, children: [Folder] }"])
        #expect(TypeShape.of(Link.self).definitions == ["Link = { value: Int, next: Link? }"])
    }

    @Test("what probing cannot see is marked, and the fields before it are kept")
    func limits() {
        let guarded = TypeShape.of(Guarded.self)
        let hidden = "… (not visible: its init(from:) rejected a placeholder value; the fields after that are not visible)"
        #expect(guarded.definitions == ["Guarded = { first: String, positive: Positive, \(hidden) }", "Positive = { value: Int, \(hidden) }"])
        #expect(guarded.canonical == "{first:String,positive:{value:Int,…:?opaque},…:?opaque}", "fields after a rejected placeholder are not visible")
        // Keys that are not a case-only enum cannot be listed.
        #expect(TypeShape.of(Listing.self).definitions == ["Listing = ? (an enum whose coding keys cannot be listed)"])
    }

    @Test("the fingerprint: same for the same coding (renamed types, reordered fields and cases), different for every change a decoder notices")
    func fingerprints() {
        let base = TypeShape.of(V1.Action.self).fingerprint
        #expect(base.count == 16 && base.allSatisfy(\.isHexDigit))
        #expect(TypeShape.of(V1.Action.self).fingerprint == base, "stable")
        #expect(TypeShape.of(V2Reordered.Action.self).fingerprint == base, "reordered fields and cases")
        #expect(TypeShape.of(V2Renamed.Command.self).fingerprint == base, "renamed types")
        for changed in [
            TypeShape.of(V2CaseAdded.Action.self), TypeShape.of(V2FieldRenamed.Action.self),
            TypeShape.of(V2TypeChanged.Action.self), TypeShape.of(V2OptionalAdded.Action.self),
        ] {
            #expect(changed.fingerprint != base, "\(changed.definitions)")
        }
        #expect(TypeShape.of(Tree.self).fingerprint != TypeShape.of(TreeV1.self).fingerprint, "labels given to a case's values")
    }

    @Test("the macro's shapes are what probing finds, for every kind of declaration it handles and for the example apps")
    func generated() {
        func probed<T: Decodable>(_ type: T.Type) -> TypeShape { ShapeProbe(generated: false).describe(type, wantsValue: false).shape }
        #expect(TypeShape.of(Generated.Action.self) == probed(Generated.Action.self))
        #expect(TypeShape.of(Generated.Action.self).definitions == [
            "Action = add(_0: Line) | remove(id: String, _1: Int?) | clear | batch(_0: [Action]) | default(kind: Kind) | counted(_0: Counted)",
            "Line = { id: String, price: Int, note: String?, tags: [String: [Int]] }",
            "Kind = plain | DEFAULT",
            "Counted = { value: Int }",
        ])
        for (generated, probed) in [
            (TypeShape.of(ShopAction.self), probed(ShopAction.self)), (TypeShape.of(ShopState.self), probed(ShopState.self)),
            (TypeShape.of(TodoAction.self), probed(TodoAction.self)), (TypeShape.of(TodoState.self), probed(TodoState.self)),
        ] {
            #expect(generated == probed)
        }
    }

    @Test("with probing off, nothing of a type's decoding runs: generated shapes are whole, other types are marked")
    func generatedOnly() {
        // Only this test describes `Holder`, and it does so without probing first.
        let shape = ShapeProbe(probing: false).describe(Generated.Holder.self, wantsValue: false).shape
        #expect(Generated.Watched.decodings == 0, "the decoding of a type without generated code did not run")
        #expect(shape.definitions == [
            "Holder = { name: String, watched: Watched }",
            "Watched = ? (its shape is not generated (no @BinaryCodable) and probing is off)",
        ])
        #expect(TypeShape.of(ShopAction.self, probing: false) == TypeShape.of(ShopAction.self), "the shop's actions are all generated")
        #expect(TypeShape.of(Generated.Holder.self) == ShapeProbe(generated: false).describe(Generated.Holder.self, wantsValue: false).shape)
        #expect(TypeShape.of(Generated.Holder.self).definitions.last == "Watched = { value: Int }")
        #expect(Generated.Watched.decodings > 0, "probing does run it")
    }

    @Test("what changed, named by type and member, with what it does to recorded payloads")
    func changes() {
        let v1 = TypeShape.of(V1.Action.self)
        func changes<T: Decodable>(_ type: T.Type) -> [String] { TypeShape.of(type).changes(since: v1).map(\.description) }
        #expect(changes(V1.Action.self) == [])
        #expect(changes(V2Reordered.Action.self) == [], "reordered fields and cases")
        #expect(changes(V2Renamed.Command.self) == [], "renamed types")
        #expect(changes(V2Indirect.Action.self) == [], "indirect changes the layout in memory, not the encoding")
        #expect(changes(V2CaseAdded.Action.self) == ["Action: case `applyCoupon(code: String)` added"])
        #expect(changes(V2CaseRemoved.Action.self) == ["Action: case `clear` removed: recorded events of it no longer decode"])
        #expect(changes(V2FieldRenamed.Action.self) == [
            "Line: field `price: Int` removed and `unitPrice: Int` added (renamed?): recorded values lack it and no longer decode "
                + "(a default value does not help synthesized Codable)",
        ])
        #expect(changes(V2TypeChanged.Action.self) == ["Line.price: Int → Decimal: recorded values may not decode, or decode to other values"])
        #expect(changes(V2OptionalAdded.Action.self) == ["Line: field `gift: Bool?` added: recorded values decode it as nil"])
        #expect(changes(V2DefaultAdded.Action.self) == [
            "Line: field `quantity: Int` added: recorded values lack it and no longer decode (a default value does not help synthesized Codable)",
        ])
        #expect(changes(V2Loosened.Action.self) == ["Line.price: Int → Int?", "Action.remove.id: String → String?"])
        #expect(changes(V2Many.Action.self) == [
            "Line.id: String → Int: recorded values may not decode, or decode to other values",
            "Line: field `price: Int` removed and `cost: Int` added (renamed?): recorded values lack it and no longer decode "
                + "(a default value does not help synthesized Codable)",
            "Action.remove: field `reason: String?` added: recorded values decode it as nil",
            "Action: case `reset` added",
            "Action: case `clear` removed: recorded events of it no longer decode",
        ])
        let effects = TypeShape.of(V2Many.Action.self).changes(since: v1).map(\.effect)
        #expect(effects == [.mayNotDecode, .mayNotDecode, .decodesDifferently, .decodesAsBefore, .mayNotDecode])
        #expect(TypeShape.of(V2Loosened.Action.self).changes(since: v1).allSatisfy { $0.effect == .decodesAsBefore })
        // Whole types replaced, and a recursive type's changes reported once.
        #expect(TypeShape.of(Folder.self).changes(since: TypeShape.of(V1.Line.self)).count == 4)
        #expect(TypeShape.of(TreeV1.self).changes(since: TypeShape.of(Tree.self)).map(\.description) == [
            "TreeV1.node: field `_0: Tree` removed and `left: TreeV1` added (renamed?): recorded values lack it and no longer decode "
                + "(a default value does not help synthesized Codable)",
            "TreeV1.node: field `_1: Tree` removed and `right: TreeV1` added (renamed?): recorded values lack it and no longer decode "
                + "(a default value does not help synthesized Codable)",
        ])
    }

    @Test("shapes round-trip through JSON, so a session can record them")
    func codable() throws {
        let shape = TypeShape.of(ShopState.self)
        #expect(try JSONDecoder().decode(TypeShape.self, from: JSONEncoder().encode(shape)) == shape)
    }

    @Test("a generic type that holds itself with another argument is described to a bounded depth, not until the stack overflows")
    func polymorphicRecursion() {
        let shape = TypeShape.of(Nesting<Int>.self)
        #expect(shape.canonical.contains("opaque"))
        // Each level is one more type: the description stops at the probe's depth.
        #expect((ShapeProbe.typeDepth - 8...ShapeProbe.typeDepth).contains(shape.canonical.components(separatedBy: "value:").count - 1))
    }
}

/// `Nesting<T>` holds a `Nesting<[T]>`: a new type at every level.
private final class Nesting<T: Codable>: Codable {
    let value: T
    let deeper: Nesting<[T]>?
}
