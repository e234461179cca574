/// Who records a session: the app, its version, and the versions of its action and state
/// types, so a reader knows which types and upgrades a log needs.
///
/// ```swift
/// let shop = AppIdentity(id: "com.example.shop", version: "2.3.1", actionSchemaVersion: 4, stateSchemaVersion: 7)
/// ```
///
/// Bump a schema version whenever a change to the type would stop old payloads from decoding
/// as they are, and supply an ``Upcaster`` for the old versions.
public struct AppIdentity: Codable, Sendable, Hashable {
    /// A stable identifier, e.g. the bundle identifier. Replay tools look apps up by it.
    public var id: String
    /// The app's version.
    public var version: String
    /// The version of the app's Action type.
    public var actionSchemaVersion: Int
    /// The version of the app's State type.
    public var stateSchemaVersion: Int

    /// Creates an identity.
    public init(id: String, version: String = "1", actionSchemaVersion: Int = 1, stateSchemaVersion: Int = 1) {
        self.id = id
        self.version = version
        self.actionSchemaVersion = actionSchemaVersion
        self.stateSchemaVersion = stateSchemaVersion
    }
}
