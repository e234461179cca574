/// A call site as the `sources` table stores it.
package struct SourceKey: Hashable, Sendable {
    package var file: String
    package var function: String
    package var line: UInt
    package var column: UInt
    package var origin: String

    package init(file: String, function: String, line: UInt, column: UInt, origin: String) {
        (self.file, self.function, self.line, self.column, self.origin) = (file, function, line, column, origin)
    }
}
