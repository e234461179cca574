/// What answers the inspector's API calls: `GET /api/<endpoint>?<parameters>` with the
/// launch's token. The `rewind` tool implements it over its own commands (`rewind serve`), so
/// each call answers with the report `--json` prints.
///
/// An implementation is called concurrently, once per call, and may block (reading and
/// replaying a log): the inspector runs each call as an ``InspectorJob``, off its connection
/// handling, and bounds how many run (``Inspector/Limits``).
public protocol InspectorAPI: Sendable {
    /// The answer to one call. Errors are answers too (``InspectorResponse/error(_:status:)``):
    /// an implementation does not throw.
    ///
    /// - Parameters:
    ///   - call: The call to answer.
    ///   - job: Where long work reports its progress, and learns that nobody waits for the
    ///     answer any more (``InspectorJob/isCancelled``): it may then stop and answer anything.
    func answer(_ call: InspectorCall, in job: InspectorJob) async -> InspectorResponse

    /// Whether `call` may run long (a replay): long calls run at most
    /// ``Inspector/Limits/running`` at a time, and wait their turn beyond that. By default,
    /// none is.
    func isLong(_ call: InspectorCall) -> Bool

    /// Whether the page opens on its Reports view (a collector's store) rather than a log's
    /// timeline: it lists `GET /api/reports`, and opens a report's timeline by giving
    /// `report=ID` to every call. By default, it does not.
    var listsReports: Bool { get }
}

extension InspectorAPI {
    public func isLong(_ call: InspectorCall) -> Bool { false }
    public var listsReports: Bool { false }
}
