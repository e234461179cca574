import Foundation

/// A condition on a state's JSON encoding, such as `cart.total < 0` or
/// `cart.lines.count >= 3` — what `rewind bisect --where` takes.
///
/// A path walks object keys (`cart.total`), array indices (`lines[0]`) and `count` (an array's
/// or object's size). Values are numbers, `"strings"`, `true`, `false` or `null`; operators are
/// `<`, `<=`, `>`, `>=`, `==` and `!=`.
public struct StatePredicate: Sendable, CustomStringConvertible {
    enum Step: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    enum Literal: Sendable, Equatable {
        case number(Double)
        case string(String)
        case bool(Bool)
        case null
    }

    enum Operator: String, Sendable, CaseIterable {
        case lessOrEqual = "<=", greaterOrEqual = ">=", equal = "==", notEqual = "!=", less = "<", greater = ">"
    }

    let path: [Step]
    let comparison: Operator
    let value: Literal
    /// The text it was parsed from.
    public let description: String

    /// Why an expression could not be parsed or evaluated.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        /// What went wrong.
        public var description: String
    }

    /// Parses an expression.
    ///
    /// - Parameter expression: E.g. `cart.total < 0`.
    /// - Throws: ``Failure`` saying what is wrong with it.
    public init(_ expression: String) throws(Failure) {
        description = expression
        guard let (operatorRange, found) = Operator.allCases.lazy
            .compactMap({ op in expression.range(of: op.rawValue).map { ($0, op) } })
            .min(by: { $0.0.lowerBound < $1.0.lowerBound })
        else {
            throw Failure(description: "'\(expression)' has no comparison (use <, <=, >, >=, == or !=), e.g. 'cart.total < 0'")
        }
        comparison = found
        let pathText = expression[..<operatorRange.lowerBound].trimmingCharacters(in: .whitespaces)
        let valueText = expression[operatorRange.upperBound...].trimmingCharacters(in: .whitespaces)
        path = try Self.path(pathText, in: expression)
        value = try Self.parseLiteral(valueText, in: expression)
    }

    /// The steps of a path (`cart.lines[0].quantity`); `expression` is what errors quote.
    static func path(_ text: String, in expression: String) throws(Failure) -> [Step] {
        guard !text.isEmpty else { throw Failure(description: "'\(expression)' has no path before the comparison") }
        var steps: [Step] = []
        for component in text.split(separator: ".", omittingEmptySubsequences: false) {
            var rest = Substring(component)
            let key = rest.prefix { $0 != "[" }
            guard !key.isEmpty else { throw Failure(description: "'\(text)' has an empty path component") }
            steps.append(.key(String(key)))
            rest = rest.dropFirst(key.count)
            while rest.first == "[" {
                guard let close = rest.firstIndex(of: "]"), let index = Int(rest[rest.index(after: rest.startIndex)..<close]) else {
                    throw Failure(description: "'\(text)' has a malformed index (use [0], [1], …)")
                }
                steps.append(.index(index))
                rest = rest[rest.index(after: close)...]
            }
            guard rest.isEmpty else { throw Failure(description: "'\(text)' has unexpected characters '\(rest)'") }
        }
        return steps
    }

    private static func parseLiteral(_ text: String, in expression: String) throws(Failure) -> Literal {
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null", "nil": return .null
        default:
            if let number = Double(text) { return .number(number) }
            if text.count >= 2, let first = text.first, let last = text.last, first == last, first == "\"" || first == "'" {
                return .string(String(text.dropFirst().dropLast()))
            }
            throw Failure(description: "'\(text)' is not a number, a quoted string, true, false or null")
        }
    }

    /// Evaluates the condition on a state's JSON object (as `JSONSerialization` reads it).
    ///
    /// - Throws: ``Failure`` when the path does not exist in the state, naming the keys there.
    public func evaluate(on json: Any) throws(Failure) -> Bool {
        var current: Any = json
        var walked: [String] = []
        for step in path {
            switch (step, current) {
            case let (.key("count"), array as [Any]):
                current = array.count
            case let (.key(key), object as [String: Any]):
                if let next = object[key] {
                    current = next
                } else if key == "count" {
                    current = object.count
                } else {
                    let place = walked.isEmpty ? "the state" : walked.joined(separator: ".")
                    throw Failure(description: "'\(key)' is not in \(place) (it has: \(object.keys.sorted().joined(separator: ", ")))")
                }
            case let (.index(index), array as [Any]):
                guard array.indices.contains(index) else { return false }
                current = array[index]
            default:
                let place = walked.isEmpty ? "the state" : walked.joined(separator: ".")
                throw Failure(description: "cannot follow \(step) into \(place), which is \(Self.kind(of: current))")
            }
            if case let .key(key) = step { walked.append(key) } else if case let .index(index) = step { walked.append("[\(index)]") }
        }
        return compare(current)
    }

    private func compare(_ found: Any) -> Bool {
        switch value {
        case let .number(number):
            guard let actual = (found as? NSNumber)?.doubleValue ?? (found as? Int).map(Double.init) else { return comparison == .notEqual }
            return ordered(actual, number)
        case let .string(string):
            guard let actual = found as? String else { return comparison == .notEqual }
            return ordered(actual, string)
        case let .bool(bool):
            guard let actual = (found as? NSNumber)?.boolValue else { return comparison == .notEqual }
            return comparison == .equal ? actual == bool : comparison == .notEqual ? actual != bool : false
        case .null:
            let isNull = found is NSNull
            return comparison == .equal ? isNull : comparison == .notEqual ? !isNull : false
        }
    }

    private func ordered<T: Comparable>(_ actual: T, _ expected: T) -> Bool {
        switch comparison {
        case .less: actual < expected
        case .lessOrEqual: actual <= expected
        case .greater: actual > expected
        case .greaterOrEqual: actual >= expected
        case .equal: actual == expected
        case .notEqual: actual != expected
        }
    }

    private static func kind(of value: Any) -> String {
        switch value {
        case is [Any]: "a list"
        case is [String: Any]: "an object"
        case is String: "a string"
        case is NSNull: "null"
        default: "a value"
        }
    }
}
