public import Foundation

/// Upgrades payloads recorded with an older action or state schema version to the app's
/// current one, before they are decoded.
///
/// Restoring from a log (``LogReader/restoredState(app:reducer:upcaster:typeShapes:onSchemaDrift:)``) passes every payload
/// from a session whose ``AppIdentity/actionSchemaVersion`` or
/// ``AppIdentity/stateSchemaVersion`` is older than the app's through the matching function,
/// with the version it was recorded at. For the JSON codec, `JSONSerialization` is a convenient
/// way to rename or add fields.
///
/// ```swift
/// let upcaster = Upcaster(state: { data, version in
///     guard version < 2 else { return data }
///     var object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
///     object["currency"] = "EUR"   // added in version 2
///     return try JSONSerialization.data(withJSONObject: object)
/// })
/// ```
public struct Upcaster: Sendable {
    /// Upgrades an encoded action recorded at the given action schema version.
    public var action: (@Sendable (_ payload: Data, _ recordedVersion: Int) throws -> Data)?
    /// Upgrades an encoded state recorded at the given state schema version.
    public var state: (@Sendable (_ payload: Data, _ recordedVersion: Int) throws -> Data)?

    /// Creates an upcaster; a `nil` function leaves those payloads as they are.
    public init(
        action: (@Sendable (_ payload: Data, _ recordedVersion: Int) throws -> Data)? = nil,
        state: (@Sendable (_ payload: Data, _ recordedVersion: Int) throws -> Data)? = nil
    ) {
        self.action = action
        self.state = state
    }

    /// Leaves every payload as it is.
    public static let none = Upcaster()
}
