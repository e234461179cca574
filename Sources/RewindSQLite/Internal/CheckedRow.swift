import Foundation
import GRDB
import RewindLogCore

extension RowDamage {
    /// `column` holding what `found` is where `expected` should be.
    init(column: String, expected: String, found: DatabaseValue) {
        let what = switch found.storage {
        case .null: "NULL"
        case .int64: "an integer"
        case .double: "a real number"
        case .string: "text"
        case .blob: "a blob"
        }
        self.init("\(column) holds \(what) where \(expected) is expected")
    }
}

// GRDB's `row[…]` subscripts trap on a NULL or mistyped value (they `try!` the conversion),
// so rows from a file that may have been tampered with are read through these instead.
extension Row {
    /// The value at `index`, which must not be NULL.
    ///
    /// - Parameter column: The column's name, for the error (`sessions.codec`).
    func required<Value: DatabaseValueConvertible>(_ index: Int, _ column: String, as type: Value.Type = Value.self) throws -> Value {
        try Self.converted(self[index], column, Value.self)
    }

    /// The value of `name`, which must not be NULL.
    func required<Value: DatabaseValueConvertible>(_ name: String, in table: String, as type: Value.Type = Value.self) throws -> Value {
        try Self.converted(self[name] ?? .null, "\(table).\(name)", Value.self)
    }

    /// The value at `index`, or `nil` when it is NULL.
    func optional<Value: DatabaseValueConvertible>(_ index: Int, _ column: String, as type: Value.Type = Value.self) throws -> Value? {
        let value: DatabaseValue = self[index]
        return value.isNull ? nil : try Self.converted(value, column, Value.self, orNULL: true)
    }

    /// The value of `name`, or `nil` when it is NULL.
    func optional<Value: DatabaseValueConvertible>(_ name: String, in table: String, as type: Value.Type = Value.self) throws -> Value? {
        let value: DatabaseValue = self[name] ?? .null
        return value.isNull ? nil : try Self.converted(value, "\(table).\(name)", Value.self, orNULL: true)
    }

    private static func converted<Value: DatabaseValueConvertible>(_ value: DatabaseValue, _ column: String, _ type: Value.Type, orNULL: Bool = false) throws -> Value {
        guard let converted = Value.fromDatabaseValue(value) else {
            throw RowDamage(column: column, expected: "\(Value.self)" + (orNULL ? " or NULL" : ""), found: value)
        }
        return converted
    }

    /// A time (seconds since 1970) at `index`: a finite number, which JSON can carry.
    func time(_ index: Int, _ column: String) throws -> Double {
        try Self.finite(required(index, column), column)
    }

    /// The time (seconds since 1970) in `name`: a finite number, which JSON can carry.
    func time(_ name: String, in table: String) throws -> Double {
        try Self.finite(required(name, in: table), "\(table).\(name)")
    }

    private static func finite(_ time: Double, _ column: String) throws -> Double {
        guard time.isFinite else { throw RowDamage("\(column) holds a time that is not a finite number") }
        return time
    }

    /// Bytes of a payload or state column, stored as a blob (binary codecs) or text (JSON).
    func bytes(_ index: Int, _ column: String) throws -> Data? {
        let value: DatabaseValue = self[index]
        switch value.storage {
        case .null: return nil
        case let .blob(data): return data
        case let .string(text): return Data(text.utf8)
        case .int64, .double: throw RowDamage(column: column, expected: "a blob or text", found: value)
        }
    }
}

extension ClosedRange where Bound == Int64 {
    /// `first...last`, or damage when a tampered row has them the wrong way round (`...`
    /// traps on that).
    static func checked(_ first: Int64, _ last: Int64, _ what: String) throws -> Self {
        guard first <= last else {
            throw RowDamage("\(what) runs from \(first) back to \(last)")
        }
        return first...last
    }
}
