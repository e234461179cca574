extension TypeShape {
    /// One difference between the shape a log recorded and the shape a build has now, named
    /// by the current build's types:
    ///
    /// ```
    /// CartAction: case `applyCoupon(code: String)` added
    /// CartLine.unitPrice: Int → Decimal: recorded values may not decode, or decode to other values
    /// ```
    public struct Change: Sendable, Hashable, Codable, CustomStringConvertible {
        /// What kind of change.
        public enum Kind: String, Sendable, Hashable, Codable {
            case caseAdded, caseRemoved, fieldAdded, fieldRemoved, fieldRenamed, typeChanged
        }

        /// What the change does to payloads recorded before it.
        public enum Effect: Int, Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
            /// They decode as before: a case added, a field made optional.
            case decodesAsBefore
            /// They decode, to other values: a new optional field comes back `nil`, a removed
            /// field's recorded values are ignored.
            case decodesDifferently
            /// Some may not decode, or decode to other values: a case removed, a required field
            /// added or renamed, a type changed.
            case mayNotDecode

            public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

            public var description: String {
                switch self {
                case .decodesAsBefore: "decodes as before"
                case .decodesDifferently: "decodes differently"
                case .mayNotDecode: "may not decode"
                }
            }
        }

        public var kind: Kind
        /// The struct or enum the change is in, by its current name (`CartLine`).
        public var owner: String
        /// The case or field changed (`unitPrice`), or the case and its value (`add.quantity`).
        public var member: String
        /// What the recorded shape had there (`Int`, `clear`, `price: Int`), if anything.
        public var before: String?
        /// What the current shape has there, if anything.
        public var after: String?
        public var effect: Effect

        public var description: String {
            let place = owner + (member.isEmpty ? "" : "." + member)
            let consequence: String? = switch (kind, effect) {
            case (.caseRemoved, _): "recorded events of it no longer decode"
            case (.fieldAdded, .decodesDifferently), (.fieldRenamed, .decodesDifferently): "recorded values decode it as nil"
            case (.fieldAdded, _), (.fieldRenamed, _):
                "recorded values lack it and no longer decode (a default value does not help synthesized Codable)"
            case (.fieldRemoved, _): "its recorded values are ignored"
            case (.typeChanged, .mayNotDecode): "recorded values may not decode, or decode to other values"
            default: nil
            }
            let what: String = switch kind {
            case .caseAdded: "\(owner): case `\(after ?? member)` added"
            case .caseRemoved: "\(owner): case `\(before ?? member)` removed"
            case .fieldAdded: "\(ownerAndCase): field `\(after ?? member)` added"
            case .fieldRemoved: "\(ownerAndCase): field `\(before ?? member)` removed"
            case .fieldRenamed: "\(ownerAndCase): field `\(before ?? "")` removed and `\(after ?? "")` added (renamed?)"
            case .typeChanged: "\(place): \(before ?? "?") → \(after ?? "?")"
            }
            return consequence.map { what + ": " + $0 } ?? what
        }

        /// `CartLine`, or `CartAction.add` for a value of a case.
        private var ownerAndCase: String {
            guard let dot = member.lastIndex(of: ".") else { return owner }
            return owner + "." + member[..<dot]
        }
    }

    /// What changed from `recorded` to this shape, each change once, in the order they are met
    /// walking down from the root. Empty when both encode the same way (``canonical`` is
    /// equal). Where either side is ``opaque(name:reason:)``, nothing is claimed.
    public func changes(since recorded: TypeShape) -> [Change] {
        var comparison = ShapeComparison()
        comparison.compare(recorded, self, at: nil)
        return comparison.changes
    }
}

/// The walk behind ``TypeShape/changes(since:)``.
private struct ShapeComparison {
    /// Where a shape sits: the field (or case value) of a named type.
    struct Place {
        var owner: String
        var member: String
    }

    var changes: [TypeShape.Change] = []
    private var seen: Set<TypeShape.Change> = []
    /// Pairs of named types already compared: a type used in many places is compared once.
    private var compared: Set<[String]> = []

    mutating func compare(_ old: TypeShape, _ new: TypeShape, at place: Place?) {
        compare(old, new, at: place, whole: (old, new))
    }

    /// Compares `old` with `new` at `place`, where the field's whole shapes are `whole` (the
    /// same, or the optionals and collections around them, for messages).
    private mutating func compare(_ old: TypeShape, _ new: TypeShape, at place: Place?, whole: (TypeShape, TypeShape)) {
        guard old.canonical != new.canonical else { return }
        switch (old, new) {
        case (.opaque, _), (_, .opaque), (.reference, _), (_, .reference):
            // Nothing visible to compare, or a recursion compared where it began.
            return
        case let (.optional(a), .optional(b)), let (.list(a), .list(b)):
            compare(a, b, at: place, whole: whole)
        case let (.map(k1, v1), .map(k2, v2)):
            compare(k1, k2, at: place, whole: whole)
            compare(v1, v2, at: place, whole: whole)
        case let (.record(oldName, oldFields), .record(name, fields)):
            guard compared.insert([oldName, name, old.canonical, new.canonical]).inserted else { return }
            compareMembers(oldFields, fields, owner: name, prefix: "")
        case let (.choice(oldName, oldCases), .choice(name, cases)):
            guard compared.insert([oldName, name, old.canonical, new.canonical]).inserted else { return }
            compareCases(oldCases, cases, owner: name)
        case let (_, .optional(wrapped)) where wrapped.canonical == old.canonical:
            add(.typeChanged, at: place, before: whole.0.typeName, after: whole.1.typeName, effect: .decodesAsBefore)
        default:
            add(.typeChanged, at: place, before: whole.0.typeName, after: whole.1.typeName, effect: .mayNotDecode)
        }
    }

    private mutating func compareCases(_ old: [TypeShape.Case], _ new: [TypeShape.Case], owner: String) {
        let oldByName = Dictionary(old.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newNames = Set(new.map(\.name))
        for item in new {
            guard let recorded = oldByName[item.name] else {
                add(.caseAdded, at: Place(owner: owner, member: item.name), before: nil, after: signature(item), effect: .decodesAsBefore)
                continue
            }
            compareMembers(recorded.fields, item.fields, owner: owner, prefix: item.name + ".")
        }
        for item in old where !newNames.contains(item.name) {
            add(.caseRemoved, at: Place(owner: owner, member: item.name), before: signature(item), after: nil, effect: .mayNotDecode)
        }
    }

    /// The fields of a record, or the values of a case (`prefix` is then `case.`).
    private mutating func compareMembers(_ old: [TypeShape.Field], _ new: [TypeShape.Field], owner: String, prefix: String) {
        let oldByName = Dictionary(old.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newNames = Set(new.map(\.name))
        var added = new.filter { oldByName[$0.name] == nil }
        let removed = old.filter { !newNames.contains($0.name) }
        for field in new {
            guard let recorded = oldByName[field.name] else { continue }
            compare(recorded.shape, field.shape, at: Place(owner: owner, member: prefix + field.name))
        }
        for field in removed {
            // A field removed and one of the same type added in the same place reads as a
            // rename: say so once, rather than as two unrelated changes.
            if let index = added.firstIndex(where: { Self.sameValues($0.shape, field.shape) }) {
                let renamed = added.remove(at: index)
                add(.fieldRenamed, at: Place(owner: owner, member: prefix + renamed.name), before: signature(field), after: signature(renamed),
                    effect: Self.isOptional(renamed.shape) ? .decodesDifferently : .mayNotDecode)
            } else {
                add(.fieldRemoved, at: Place(owner: owner, member: prefix + field.name), before: signature(field), after: nil, effect: .decodesDifferently)
            }
        }
        for field in added {
            add(.fieldAdded, at: Place(owner: owner, member: prefix + field.name), before: nil, after: signature(field),
                effect: Self.isOptional(field.shape) ? .decodesDifferently : .mayNotDecode)
        }
    }

    private mutating func add(_ kind: TypeShape.Change.Kind, at place: Place?, before: String?, after: String?, effect: TypeShape.Change.Effect) {
        let change = TypeShape.Change(
            kind: kind, owner: place?.owner ?? after ?? "", member: place?.member ?? "", before: before, after: after, effect: effect
        )
        if seen.insert(change).inserted { changes.append(change) }
    }

    private func signature(_ field: TypeShape.Field) -> String {
        "\(field.name): \(field.shape.typeName)"
    }

    private func signature(_ item: TypeShape.Case) -> String {
        item.fields.isEmpty ? item.name : item.name + "(" + item.fields.map(signature).joined(separator: ", ") + ")"
    }

    private static func isOptional(_ shape: TypeShape) -> Bool {
        if case .optional = shape { return true }
        return false
    }

    /// Whether two fields hold the same values, optional or not.
    private static func sameValues(_ a: TypeShape, _ b: TypeShape) -> Bool {
        func unwrapped(_ shape: TypeShape) -> TypeShape {
            if case let .optional(wrapped) = shape { return wrapped }
            return shape
        }
        return unwrapped(a).canonical == unwrapped(b).canonical
    }
}
