import Foundation

/// A JSON value as `SortedJSONEncoder` builds it: every node in one array, linked to its
/// parent, first child and next sibling, written out once the whole value is encoded.
///
/// `Codable` containers have no "end", and a container may be written to after its siblings,
/// so nothing can be written before the value's `encode(to:)` returns. One array of nodes,
/// kept from one value to the next, spares the allocations a tree of objects would make for
/// every container.
///
/// A large value is written as it goes instead (`finish(_:from:)`): once the tree holds more
/// than `compactionThreshold` nodes, each value whose `encode(to:)` has returned is written
/// into `fragments` and its subtree replaced by one raw node, and an array's consecutive raw
/// elements merge into one. A snapshot of the example shop after 100,000 actions took a tree
/// of about 130,000 nodes (7 MB, twice that while the array grew); written as it goes it
/// keeps about the threshold's nodes and the JSON's bytes.
///
/// A finished container is written over its descendants' bytes, its largest raw child's left
/// where they are (`writeInPlace(_:from:)`), and so is the root: the value's JSON is then
/// `fragments` itself, handed to the encoder's `Data` without a copy (`takeOutput()`). The
/// shop's snapshot took about three times its JSON while it was encoded when each container
/// was copied out and back, and the whole value into an array and then into a `Data`.
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
        /// Values already written, `fragments[start..<end]`: one value, or in an array
        /// `elements` consecutive elements with their commas.
        case raw(start: Int32, end: Int32, elements: Int32)
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

    /// Where a value's encoding began: the tree's size then.
    struct Mark {
        let nodes: Int
        let fragments: Int
    }

    /// How many nodes the tree may hold before finished values are written as they come.
    let compactionThreshold: Int

    // Unchecked: every access is from the one thread encoding, none overlaps another, and the
    // runtime's checks of each access were a fifth of the encoder's time in a profile.
    @exclusivity(unchecked) private(set) var nodes: [Node] = []
    /// Member indices being sorted, a run per object being written (reused).
    @exclusivity(unchecked) private var members: [Int32] = []
    /// The JSON of values already written, that raw nodes point into.
    private let fragments = OwnedBytes()
    /// About how many bytes of JSON the value being encoded will take (the last value's, as
    /// the encoder tells it): `fragments` is reserved at that size when a large value begins to
    /// be written as it goes, instead of doubling from empty.
    private var expectedSize = 0
    /// A finished value's JSON before it replaces its subtree's fragments (reused).
    @exclusivity(unchecked) private var scratch: [UInt8] = []

    init(compactionThreshold: Int = 4_096) {
        self.compactionThreshold = compactionThreshold
    }

    /// Empties the tree and adds the root, an unset value.
    ///
    /// - Parameter expectedSize: about how many bytes the value's JSON will take, if known.
    func reset(expectedSize: Int = 0) {
        nodes.removeAll(keepingCapacity: true)
        nodes.append(Node(kind: .unset, key: "", parent: -1))
        fragments.truncate(to: 0)
        self.expectedSize = expectedSize
    }

    /// Drops what a large value wrote as it went, once it is written out: a recorder's
    /// encoder lives as long as the app, and most values are small.
    func releaseLargeBuffers() {
        if fragments.capacity > Self.keptCapacity { fragments.release() }
        if scratch.capacity > Self.keptCapacity { scratch = [] }
    }

    /// About how many bytes the JSON of the nodes from `first` on takes: what is written
    /// already, and a few bytes for each node. Reserved before writing, so that a large
    /// value's buffer does not grow by doubling to twice its size.
    func estimatedSize(from first: Int = 0) -> Int {
        fragments.count + (nodes.count - first) * 24
    }

    /// The most bytes of buffers kept from one value to the next.
    static let keptCapacity = 1 << 20

    func mark() -> Mark {
        Mark(nodes: nodes.count, fragments: fragments.count)
    }

    /// Called once `node`'s value is encoded (its `encode(to:)` returned), with the mark taken
    /// before: in a large tree, writes the value into `fragments` and replaces its subtree by
    /// a raw node, merged into the raw element before it in an array.
    ///
    /// Only a node that was the tree's last when its value began is written: then every node
    /// after it is its own descendant, made by its `encode(to:)`, and no other container can
    /// refer to them. (An `encode(to:)` that kept a container to write to after it returned
    /// would break this, as it breaks `Codable`'s contract.)
    func finish(_ node: Int32, from mark: Mark) {
        // The root is written once, when the value is (`writeRootInPlace()`, `write(into:)`).
        // A value below which something was written is written too, even once the tree is
        // small again: so that a large array's bytes rise as one raw child up to the root.
        guard node > 0, Int(node) == mark.nodes - 1, nodes.count > compactionThreshold || fragments.count > mark.fragments else { return }
        switch nodes[Int(node)].kind {
        case .array, .object: break
        default: return
        }
        // 32-bit offsets, as the links are: past 2 GB of JSON the tree stays a tree.
        guard estimatedSize(from: Int(node)) < Int(Int32.max) / 2 else { return }
        if fragments.count == 0 { fragments.reserve(expectedSize + expectedSize / 16) }
        writeInPlace(node, from: mark.fragments)
        // The value's JSON is `fragments[mark.fragments...]`; its subtree goes.
        nodes.removeSubrange((Int(node) + 1)...)
        let parent = nodes[Int(node)].parent
        let previous = node - 1
        if parent >= 0, case .array = nodes[Int(parent)].kind, previous > parent,
           nodes[Int(previous)].nextSibling == node,
           case let .raw(start, end, elements) = nodes[Int(previous)].kind, Int(end) == mark.fragments {
            fragments.insert(UInt8(ascii: ","), at: mark.fragments)
            nodes[Int(previous)].kind = .raw(start: start, end: Int32(fragments.count), elements: elements + 1)
            nodes[Int(previous)].nextSibling = -1
            nodes[Int(parent)].lastChild = previous
            nodes.removeLast()
        } else {
            nodes[Int(node)].kind = .raw(start: Int32(mark.fragments), end: Int32(fragments.count), elements: 1)
            nodes[Int(node)].firstChild = -1
            nodes[Int(node)].lastChild = -1
        }
    }

    /// Writes the root over what was written as it went, if anything was, and if the root is
    /// a container; returns whether ``takeOutput()`` holds the value's JSON.
    func writeRootInPlace() -> Bool {
        guard fragments.count > 0 else { return false }
        switch nodes[0].kind {
        case .array, .object: writeInPlace(0, from: 0)
        default: return false
        }
        return true
    }

    /// The value's JSON once ``writeRootInPlace()`` returned true, as a `Data` that owns the
    /// bytes: they are not copied.
    func takeOutput() -> Data {
        fragments.take()
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
            count += elements(in: child)
            child = nodes[Int(child)].nextSibling
        }
        return count
    }

    /// How many array elements `node` stands for.
    private func elements(in node: Int32) -> Int {
        if case let .raw(_, _, elements) = nodes[Int(node)].kind { return Int(elements) }
        return 1
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
                    index += elements(in: sibling)
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
        case let .raw(start, end, _):
            bytes.append(contentsOf: fragments[Int(start)..<Int(end)])
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
        let end = sortMembers(from: start)
        var first = true
        for position in start..<end {
            let member = members[position]
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            Self.writeString(nodes[Int(member)].key, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            write(member, into: &bytes)
        }
        members.removeSubrange(start...)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Sorts `members[start...]` as Foundation's `.sortedKeys` does, and merges members whose
    /// keys are equal as Swift compares strings (canonically equivalent: `é` and `e\u{301}`)
    /// into one, as Foundation's dictionary of members does: the first key's text, the last
    /// value. Returns where the members kept end.
    ///
    /// Foundation orders keys by their UTF-8 bytes (Unicode scalars), not as Swift's `<` does
    /// (which compares them normalized); the two agree on ASCII keys, so a second sort is needed
    /// only where a key is not.
    private func sortMembers(from start: Int) -> Int {
        let end = members.count
        guard end - start > 1 else { return end }
        // Ties broken by position, so that of equal keys the last encoded comes last. (A local
        // copy of the array for the comparisons: the closure cannot borrow `self.nodes`.)
        do {
            let nodes = self.nodes
            members[start..<end].sort { nodes[Int($0)].key < nodes[Int($1)].key || (nodes[Int($0)].key == nodes[Int($1)].key && $0 < $1) }
        }
        var kept = start
        var allASCII = true
        var groupStart = start
        for position in start..<end {
            if position + 1 < end, nodes[Int(members[position + 1])].key == nodes[Int(members[position])].key { continue }
            let member = members[position]
            if groupStart != position { nodes[Int(member)].key = nodes[Int(members[groupStart])].key }
            if allASCII, !nodes[Int(member)].key.utf8.allSatisfy({ $0 < 0x80 }) { allASCII = false }
            members[kept] = member
            kept += 1
            groupStart = position + 1
        }
        if !allASCII {
            let nodes = self.nodes
            members[start..<kept].sort { nodes[Int($0)].key.utf8.lexicographicallyPrecedes(nodes[Int($1)].key.utf8) }
        }
        return kept
    }

    /// Writes container `node`'s JSON over `fragments[start...]`, where its descendants' bytes
    /// are: its largest raw child's bytes stay there, moved only as far as what comes before
    /// them in the JSON needs, and everything else — brackets, commas, keys, the other children
    /// — is written into `scratch` first. A large value's bytes are most often one raw child
    /// (an array's merged elements), so that what a container needs beside them is about its
    /// other children's size, not its own.
    private func writeInPlace(_ node: Int32, from start: Int) {
        let object = if case .object = nodes[Int(node)].kind { true } else { false }
        let first = members.count
        defer { members.removeSubrange(first...) }
        var child = nodes[Int(node)].firstChild
        while child >= 0 {
            members.append(child)
            child = nodes[Int(child)].nextSibling
        }
        let end = object ? sortMembers(from: first) : members.count
        var kept: (child: Int32, start: Int, length: Int)?
        for position in first..<end {
            if case let .raw(rawStart, rawEnd, _) = nodes[Int(members[position])].kind, Int(rawEnd - rawStart) > kept?.length ?? 0 {
                kept = (members[position], Int(rawStart), Int(rawEnd - rawStart))
            }
        }

        scratch.removeAll(keepingCapacity: true)
        var split = 0
        scratch.append(UInt8(ascii: object ? "{" : "["))
        for position in first..<end {
            let member = members[position]
            if position > first { scratch.append(UInt8(ascii: ",")) }
            if object {
                Self.writeString(nodes[Int(member)].key, into: &scratch)
                scratch.append(UInt8(ascii: ":"))
            }
            if member == kept?.child { split = scratch.count } else { write(member, into: &scratch) }
        }
        scratch.append(UInt8(ascii: object ? "}" : "]"))
        defer { if scratch.capacity > Self.keptCapacity { scratch = [] } }

        guard let kept else {
            fragments.truncate(to: start)
            fragments.append(scratch)
            return
        }
        let newCount = start + scratch.count + kept.length
        if newCount > fragments.count { fragments.grow(by: newCount - fragments.count) }
        fragments.move(from: kept.start, to: start + split, length: kept.length)
        if newCount < fragments.count { fragments.truncate(to: newCount) }
        scratch.withUnsafeBytes { text in
            fragments.write(UnsafeRawBufferPointer(rebasing: text[..<split]), at: start)
            fragments.write(UnsafeRawBufferPointer(rebasing: text[split...]), at: start + split + kept.length)
        }
    }

    /// A JSON string, as ``JSONWriter`` writes one.
    private static func writeString(_ text: String, into bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { JSONWriter.appendString(UnsafeRawBufferPointer($0), to: &bytes) }
    }

    /// A floating-point number, as ``JSONWriter`` writes one.
    static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) -> String {
        JSONWriter.numberText(value)
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
