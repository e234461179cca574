import Foundation

/// A path into an app's state as `rewind state` prints it — object keys (`cart.total`), array
/// indices (`lines[0]`) and `count` (a list's or an object's size) — read from a state in one of
/// two ways: from its JSON encoding (what `rewind state` shows, always right, and costly for a
/// large state), or by reflection (`Mirror`: only the values on the path, field by field).
///
/// `rewind blame` reads every state of a replay: it reflects as far along the path as it can,
/// then encodes only what it reached there and follows the rest of the path in that JSON (an
/// enum's payload, a key its `CodingKeys` renames, a dictionary); it checks the first value read
/// against the whole state's JSON, and reads the whole JSON from then on if they differ.
struct StatePath: Sendable, CustomStringConvertible {
    let steps: [StatePredicate.Step]
    let description: String

    /// Parses `text`, e.g. `cart.lines[0].quantity`.
    init(_ text: String) throws(StatePredicate.Failure) {
        description = text
        steps = try StatePredicate.path(text, in: text)
    }

    /// What a path reaches in one state.
    enum Found: Equatable {
        /// A value.
        case value(JSONValue)
        /// Nothing: an optional left out on the way, or an index past a list's end.
        case absent
    }

    /// The value at the path in `json` (a state's JSON form).
    ///
    /// - Throws: ``StatePredicate/Failure`` when a key is not there (naming the nearest one) or
    ///   a step cannot be followed into what is there. A key missing from an object of one key
    ///   (an enum in another case, as Swift encodes enums) is not there now: `.absent`.
    func find(in json: JSONValue, from start: Int = 0) throws(StatePredicate.Failure) -> Found {
        var current = json
        var walked = steps.prefix(start).map(Self.text(of:))
        for step in steps.dropFirst(start) {
            let place = walked.isEmpty ? "the state" : walked.joined(separator: ".")
            switch (step, current) {
            case let (.key("count"), .array(items)):
                current = .integer(Int64(items.count))
            case let (.key(key), .object(fields)):
                if let next = fields[key] {
                    current = next
                } else if key == "count" {
                    current = .integer(Int64(fields.count))
                } else if fields.count == 1 {
                    // An enum as Swift encodes one, `{"idle": {}}`: another case is not there now.
                    return .absent
                } else {
                    throw StatePredicate.Failure(description: "'\(key)' is not in \(place)" + Self.nearest(key, among: fields.keys.sorted()))
                }
            case (_, .null):
                return .absent
            case let (.index(index), .array(items)):
                guard items.indices.contains(index) else { return .absent }
                current = items[index]
            default:
                throw StatePredicate.Failure(description: "cannot follow \(Self.text(of: step)) into \(place), which is \(Self.kind(of: current))")
            }
            walked.append(Self.text(of: step))
        }
        return .value(current)
    }

    /// How far reflection follows the path in `state`: to its value (not yet encoded), to
    /// nothing, or to the value where it stopped, with the index of the step it could not take.
    func reflect(_ state: Any) -> Reflected {
        var current = state
        for (index, step) in steps.enumerated() {
            guard let unwrapped = Self.unwrapped(current) else { return .absent }
            let mirror = Mirror(reflecting: unwrapped)
            switch (step, mirror.displayStyle) {
            case (.key("count"), .collection?), (.key("count"), .set?), (.key("count"), .dictionary?):
                current = mirror.children.count
            case let (.key(key), .struct?), let (.key(key), .class?):
                guard let child = mirror.children.first(where: { $0.label == key }) else { return .stopped(unwrapped, at: index) }
                current = child.value
            case let (.index(position), .collection?):
                guard position >= 0, let child = mirror.children.dropFirst(position).first else { return .absent }
                current = child.value
            default:
                return .stopped(unwrapped, at: index)
            }
        }
        guard let value = Self.unwrapped(current) else { return .absent }
        return .value(value)
    }

    /// What reflection reached.
    enum Reflected {
        /// The value at the path.
        case value(Any)
        /// Nothing there.
        case absent
        /// The value at step `at`'s start, which reflection cannot follow: the rest of the path
        /// is followed in its JSON.
        case stopped(Any, at: Int)
    }

    /// `value` without any `Optional` around it; `nil` for `.none`.
    private static func unwrapped(_ value: Any) -> Any? {
        var current = value
        while Mirror(reflecting: current).displayStyle == .optional {
            guard let wrapped = Mirror(reflecting: current).children.first?.value else { return nil }
            current = wrapped
        }
        return current
    }

    /// `, did you mean 'total'?` for the key among `keys` nearest to `key` (by edit distance,
    /// at most half its length away), with the keys there.
    static func nearest(_ key: String, among keys: [String]) -> String {
        let scored = keys.map { ($0, distance(key, $0)) }.min { $0.1 < $1.1 }
        let hint = scored.flatMap { $0.1 <= max(1, key.count / 2) ? "; did you mean '\($0.0)'?" : nil } ?? ""
        return " (it has: \(keys.joined(separator: ", ")))" + hint
    }

    /// Levenshtein distance.
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var row = [i + 1]
            for (j, y) in b.enumerated() { row.append(min(previous[j + 1] + 1, row[j] + 1, previous[j] + (x == y ? 0 : 1))) }
            previous = row
        }
        return previous[b.count]
    }

    private static func text(of step: StatePredicate.Step) -> String {
        switch step {
        case let .key(key): key
        case let .index(index): "[\(index)]"
        }
    }

    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .array: "a list"
        case .object: "an object"
        case .string: "a string"
        case .null: "null"
        default: "a value"
        }
    }
}
