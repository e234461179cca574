/// Where a ``Recorder`` records: a log file (`log(_:)`, from RewindSQLite), or — with RewindPostgres — a
/// PostgreSQL store, for a server-side service that keeps its history in the database it
/// already runs (`RecordingDestination.postgres(_:install:)`).
public struct RecordingDestination: Sendable {
    /// The log written.
    package let target: any RecordingLog

    package init(_ target: any RecordingLog) {
        self.target = target
    }

    /// How errors name it: the file's path, or the store's URL without its password.
    public var name: String {
        target.path
    }
}
