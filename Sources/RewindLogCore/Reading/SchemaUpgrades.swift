import Foundation

/// The payload upgrades a reader applies: the app's current identity (its schema versions) and
/// the functions that bring older payloads to them.
public struct SchemaUpgrades: Sendable {
    /// The app as it is today: payloads recorded at older schema versions are upgraded.
    public var app: AppIdentity
    /// The upgrades.
    public var upcaster: Upcaster

    /// Upgrades payloads recorded before `app`'s schema versions through `upcaster`.
    public init(app: AppIdentity, upcaster: Upcaster) {
        self.app = app
        self.upcaster = upcaster
    }
}
