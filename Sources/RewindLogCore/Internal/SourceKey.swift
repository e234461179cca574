/// A call site as the `sources` table stores it.
@usableFromInline
package struct SourceKey: Hashable, Sendable {
    @usableFromInline package var file: String
    @usableFromInline package var function: String
    @usableFromInline package var line: UInt
    @usableFromInline package var column: UInt
    @usableFromInline package var origin: String

    @inlinable
    package init(file: String, function: String, line: UInt, column: UInt, origin: String) {
        (self.file, self.function, self.line, self.column, self.origin) = (file, function, line, column, origin)
    }
}
