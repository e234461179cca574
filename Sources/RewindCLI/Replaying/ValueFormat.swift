/// How the tool shows whole numbers of the app's state that people read otherwise: an amount in
/// cents as the app prints it (`24.50`), a duration in milliseconds. The inspector's state shows
/// the app's text, with the stored number beside it; reports (`--json`) keep the number and add
/// the text under `formatted`, by path.
///
/// ```swift
/// let app = ReplayableApp(id: "com.example.shop", reducer: Shop.reducer, formats: [
///     ValueFormat("total", "subtotal", "unitPrice") { cents in Money(Int(cents)).description },
/// ])
/// ```
public struct ValueFormat: Sendable {
    /// The fields it applies to: a key (`total`, any field so named), or a dotted path from the
    /// state's root with `*` for any one key or index (`cart.lines.*.unitPrice`).
    public let fields: [String]
    let text: @Sendable (Int64) -> String

    /// Shows the whole numbers at `fields` as `text` makes them.
    public init(_ fields: String..., as text: @escaping @Sendable (Int64) -> String) {
        self.fields = fields
        self.text = text
    }

    /// Whether the field at `path` (its keys and indices from the root) is one of ``fields``.
    func applies(to path: [String]) -> Bool {
        fields.contains { field in
            let pattern = field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if pattern.count == 1 { return path.last == field }
            return pattern.count == path.count && zip(pattern, path).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }
}

extension [ValueFormat] {
    /// The text of every whole number in `value` a format applies to, by its dotted path
    /// (`cart.lines.0.unitPrice`); the first format that applies wins.
    func texts(in value: JSONValue) -> [String: String] {
        guard !isEmpty else { return [:] }
        var texts: [String: String] = [:]
        func walk(_ value: JSONValue, _ path: [String]) {
            switch value {
            case let .integer(number):
                if let format = first(where: { $0.applies(to: path) }) { texts[path.joined(separator: ".")] = format.text(number) }
            case let .array(items):
                for (index, item) in items.enumerated() { walk(item, path + [String(index)]) }
            case let .object(fields):
                for (key, field) in fields { walk(field, path + [key]) }
            case .null, .bool, .number, .string:
                break
            }
        }
        walk(value, [])
        return texts
    }
}
