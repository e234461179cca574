import Foundation
import RewindCoding
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

    @Test("shapes round-trip through JSON, so a session can record them")
    func codable() throws {
        let shape = TypeShape.of(ShopState.self)
        #expect(try JSONDecoder().decode(TypeShape.self, from: JSONEncoder().encode(shape)) == shape)
    }
}
