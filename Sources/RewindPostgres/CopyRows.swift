import Synchronization

/// The rows a copy formats (``PostgresLog/copy(rows:_:)``), held so that they can be released
/// while the copy's task cannot end: a copy whose connection closed under it stays suspended
/// for good (see `PostgresLog.copy(writing:letGo:)`), and should not keep a batch of events alive
/// with it.
final class CopyRows: Sendable {
    typealias Row = @Sendable (_ index: Int, _ into: inout EventCopy) -> Void
    private let source: Mutex<Row?>

    init(_ row: @escaping Row) {
        source = Mutex(row)
    }

    /// What appends a row to a copy; `nil` once released.
    var row: Row? {
        source.withLock { $0 }
    }

    func release() {
        source.withLock { $0 = nil }
    }
}
