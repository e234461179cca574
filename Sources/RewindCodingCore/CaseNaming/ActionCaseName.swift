
/// The dotted case path of an action, as the log's `action` column stores it: `cart.remove` for
/// `ShopAction.cart(.remove(productID: "mug"))`, `cart.removeDiscount` for a case without
/// payload.
///
/// Derived on the writer thread, never on the dispatch path: from a `@BinaryCodable` enum's
/// generated code, from the first keys of a synthesized-`Codable` enum's encoding, or else by
/// reflection. A type can name its cases itself by conforming to ``NamedAction``.
public enum ActionCaseName {
    /// The case path of `action`.
    ///
    /// - Parameter action: Any value; enums give their case path, other values their type name.
    /// - Returns: The case path.
    public static func of(_ action: Any) -> String {
        if let named = action as? any NamedAction { return named.actionCaseName }
        if let generated = action as? any BinaryCodable, let path = generated.generatedCasePath { return path }
        if let encodable = action as? any Encodable, let path = CasePathEncoder.path(of: encodable) { return path }
        return reflected(action)
    }

    /// A namer for actions of one type: which way names its cases is decided once, so each
    /// event pays for its own case path but not for finding out how to get it (the dynamic casts
    /// in ``of(_:)`` were a sixth of the writer thread's encoding time).
    package static func namer<Action>(for type: Action.Type) -> @Sendable (Action) -> String {
        if let named = type as? any NamedAction.Type { return namedCase(as: named) }
        if let generated = type as? any BinaryCodable.Type, generated.generatesCasePath { return generatedCase(as: generated) }
        return { of($0) }
    }

    private static func namedCase<Action, Named: NamedAction>(as type: Named.Type) -> @Sendable (Action) -> String {
        { action in withUnsafePointer(to: action) { $0.withMemoryRebound(to: Named.self, capacity: 1) { $0.pointee.actionCaseName } } }
    }

    private static func generatedCase<Action, Generated: BinaryCodable>(as type: Generated.Type) -> @Sendable (Action) -> String {
        { action in
            let path = withUnsafePointer(to: action) { $0.withMemoryRebound(to: Generated.self, capacity: 1) { $0.pointee.generatedCasePath } }
            // A step without generated code ends the generated path: ask the general way.
            return path ?? of(action)
        }
    }

    /// The case path found by walking the value with `Mirror` (the fallback).
    static func reflected(_ action: Any) -> String {
        var parts: [String] = []
        var value = action
        while parts.count < 8 {
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .enum else {
                if parts.isEmpty { parts.append(String(describing: type(of: value))) }
                break
            }
            guard let child = mirror.children.first, let label = child.label else {
                parts.append(caseLabel(of: value))
                break
            }
            parts.append(label)
            // Follow a single payload that is itself an enum (a nested action); stop at tuples
            // (several associated values) and plain values.
            let payload = Mirror(reflecting: child.value)
            guard payload.displayStyle == .enum else { break }
            value = child.value
        }
        return parts.joined(separator: ".")
    }

    /// The name of `value`'s case, from its type's declaration — never from its payload or a
    /// description the type wrote itself, which may quote the payload (`token("s3cr3t")`).
    ///
    /// A case without payload describes itself by its name unless its type customises its
    /// description; a case with payload is named by its `Mirror` label. Anything else is
    /// named by its type.
    static func caseLabel(of value: Any) -> String {
        let customised = value is any CustomStringConvertible || value is any CustomDebugStringConvertible
            || value is any TextOutputStreamable || value is any CustomReflectable
        if !customised {
            let described = String(describing: value)
            if isIdentifier(described) { return described }
        }
        let mirror = Mirror(reflecting: value)
        if !customised, mirror.displayStyle == .enum, let label = mirror.children.first?.label, isIdentifier(label) {
            return label
        }
        return String(describing: type(of: value))
    }

    /// Whether `name` could be a Swift case name: letters, digits and underscores, not
    /// starting with a digit.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }
}
