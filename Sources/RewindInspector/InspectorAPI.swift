/// What answers the inspector's API calls: `GET /api/<endpoint>?<parameters>` with the
/// launch's token. The `rewind` tool implements it over its own commands (`rewind serve`), so
/// each call answers with the report `--json` prints.
///
/// An implementation is called concurrently, once per request, and may block (reading and
/// replaying a log): the inspector calls it off its connection handling.
public protocol InspectorAPI: Sendable {
    /// The answer to one call. Errors are answers too (``InspectorResponse/error(_:status:)``):
    /// an implementation does not throw.
    func answer(_ call: InspectorCall) async -> InspectorResponse
}
