import Foundation

/// A JSON value as `SortedJSONEncoder` builds it: every node in one array, linked to its
/// parent, first child and next sibling, written out once the whole value is encoded.
///
/// `Codable` containers have no "end", and a container may be written to after its siblings,
/// so nothing can be written before the value's `encode(to:)` returns. One array of nodes,
/// kept from one value to the next, spares the allocations a tree of objects would make for
/// every container.
final class JSONTree {
    enum Kind {
        /// A value that has not encoded anything (yet): `{}` when written.
        case unset
        case null
        case bool(Bool)
        /// A number, already formatted as Foundation's `JSONEncoder` formats it.
        case number(String)
        case string(String)
        case array
        case object
    }

    struct Node {
        var kind: Kind
        /// The member's key, in an object.
        var key: String
        var parent: Int32
        var firstChild: Int32 = -1
        var lastChild: Int32 = -1
        var nextSibling: Int32 = -1
    }

    // Unchecked: every access is from the one thread encoding, none overlaps another, and the
    // runtime's checks of each access were a fifth of the encoder's time in a profile.
    @exclusivity(unchecked) private(set) var nodes: [Node] = []
    /// Member indices being sorted, a run per object being written (reused).
    @exclusivity(unchecked) private var members: [Int32] = []

    /// Empties the tree and adds the root, an unset value.
    func reset() {
        nodes.removeAll(keepingCapacity: true)
        nodes.append(Node(kind: .unset, key: "", parent: -1))
    }

    func kind(of node: Int32) -> Kind {
        nodes[Int(node)].kind
    }

    func setKind(_ kind: Kind, of node: Int32) {
        nodes[Int(node)].kind = kind
    }

    /// Makes `node` an object or an array, keeping its members if it is one already.
    func becomeContainer(_ node: Int32, object: Bool) {
        switch (nodes[Int(node)].kind, object) {
        case (.object, true), (.array, false): return
        default:
            nodes[Int(node)].kind = object ? .object : .array
            nodes[Int(node)].firstChild = -1
            nodes[Int(node)].lastChild = -1
        }
    }

    /// Adds a child after `parent`'s last one; returns its index.
    @discardableResult
    func append(_ kind: Kind, key: String = "", to parent: Int32) -> Int32 {
        // 32-bit links halve the node's links; 2^31 nodes of about 50 bytes would need 100 GB
        // before this conversion could fail.
        let index = Int32(nodes.count)
        nodes.append(Node(kind: kind, key: key, parent: parent))
        let last = nodes[Int(parent)].lastChild
        if last < 0 {
            nodes[Int(parent)].firstChild = index
        } else {
            nodes[Int(last)].nextSibling = index
        }
        nodes[Int(parent)].lastChild = index
        return index
    }

    /// How many children `node` has.
    func childCount(of node: Int32) -> Int {
        var count = 0
        var child = nodes[Int(node)].firstChild
        while child >= 0 {
            count += 1
            child = nodes[Int(child)].nextSibling
        }
        return count
    }

    /// Where `node` is: its ancestors' keys, or indices in arrays.
    func codingPath(of node: Int32) -> [any CodingKey] {
        var path: [any CodingKey] = []
        var current = node
        while case let parent = nodes[Int(current)].parent, parent >= 0 {
            if case .array = nodes[Int(parent)].kind {
                var index = 0
                var sibling = nodes[Int(parent)].firstChild
                while sibling >= 0, sibling != current {
                    index += 1
                    sibling = nodes[Int(sibling)].nextSibling
                }
                path.append(JSONKey(index: index))
            } else {
                path.append(JSONKey(nodes[Int(current)].key))
            }
            current = parent
        }
        return path.reversed()
    }

    // MARK: - Writing

    /// Appends `node`'s JSON as Foundation's `JSONEncoder` writes it with `.sortedKeys`:
    /// members in ascending order of their keys (the last one wins where a key was encoded
    /// twice), no white space, `/` escaped as `\/`, other escapes as short as JSON allows.
    func write(_ node: Int32 = 0, into bytes: inout [UInt8]) {
        switch nodes[Int(node)].kind {
        case .unset:
            bytes.append(UInt8(ascii: "{"))
            bytes.append(UInt8(ascii: "}"))
        case .null:
            bytes.append(contentsOf: "null".utf8)
        case let .bool(value):
            bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case let .number(text):
            bytes.append(contentsOf: text.utf8)
        case let .string(text):
            Self.writeString(text, into: &bytes)
        case .array:
            bytes.append(UInt8(ascii: "["))
            var child = nodes[Int(node)].firstChild
            while child >= 0 {
                if child != nodes[Int(node)].firstChild { bytes.append(UInt8(ascii: ",")) }
                write(child, into: &bytes)
                child = nodes[Int(child)].nextSibling
            }
            bytes.append(UInt8(ascii: "]"))
        case .object:
            writeObject(node, into: &bytes)
        }
    }

    private func writeObject(_ node: Int32, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        let start = members.count
        var child = nodes[Int(node)].firstChild
        while child >= 0 {
            members.append(child)
            child = nodes[Int(child)].nextSibling
        }
        let end = members.count
        if end - start > 1 {
            // Ties broken by position, so that of equal keys the last encoded comes last.
            let nodes = self.nodes
            members[start..<end].sort { nodes[Int($0)].key < nodes[Int($1)].key || (nodes[Int($0)].key == nodes[Int($1)].key && $0 < $1) }
        }
        var first = true
        for position in start..<end {
            let member = members[position]
            if position + 1 < end, nodes[Int(members[position + 1])].key == nodes[Int(member)].key { continue }
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            Self.writeString(nodes[Int(member)].key, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            write(member, into: &bytes)
        }
        members.removeSubrange(start...)
        bytes.append(UInt8(ascii: "}"))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string: the UTF-8 bytes as they are, but for quotes, backslashes, slashes and
    /// control characters.
    private static func writeString(_ text: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for (index, byte) in utf8.enumerated() {
                let escape: UInt8
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escape = byte
                case 0x0A: escape = UInt8(ascii: "n")
                case 0x0D: escape = UInt8(ascii: "r")
                case 0x09: escape = UInt8(ascii: "t")
                case 0x08: escape = UInt8(ascii: "b")
                case 0x0C: escape = UInt8(ascii: "f")
                case 0x00..<0x20: escape = 0
                default: continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                bytes.append(UInt8(ascii: "\\"))
                if escape == 0 {
                    bytes.append(contentsOf: "u00".utf8)
                    bytes.append(hexDigits[Int(byte >> 4)])
                    bytes.append(hexDigits[Int(byte & 0x0F)])
                } else {
                    bytes.append(escape)
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A floating-point number as Foundation's `JSONEncoder` writes it: its shortest
    /// round-tripping form, without a trailing `.0`.
    static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}

/// A key in a coding path the tree works out: a member's name or an array index.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ name: String) {
        stringValue = name
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }
}
