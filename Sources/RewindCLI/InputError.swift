import Foundation

/// A value the command line was given that cannot be used: a seq of 0, a reversed range, an
/// unreadable time. The tool prints it as one line and exits 2; unlike ArgumentParser's
/// `ValidationError` (for a missing or unknown option), it prints no usage text.
struct InputError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    /// Checks that `value`, given as `option`, can be a seq, a session number or a count.
    static func requirePositive<Value: BinaryInteger>(_ value: Value?, _ option: String, what: String = "a seq") throws {
        guard let value, value < 1 else { return }
        throw InputError("\(option) \(value): \(what) is 1 or more")
    }

    /// Checks that `low`…`high`, given as `lowOption` and `highOption`, is not reversed.
    static func requireOrdered<Value: Comparable>(_ low: Value?, _ high: Value?, _ lowOption: String, _ highOption: String) throws {
        guard let low, let high, low > high else { return }
        throw InputError("\(lowOption) \(low) is after \(highOption) \(high)")
    }
}
