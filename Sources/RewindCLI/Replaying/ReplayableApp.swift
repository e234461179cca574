public import Rewind
public import RewindLog
import RewindReplay

/// An app the `rewind` tool can replay: its types, its reducer and the invariants its state
/// must keep. Register apps with ``RewindTool/main(apps:extraCommands:)``.
///
/// ```swift
/// let shop = ReplayableApp(
///     id: "com.example.shop",
///     reducer: Shop.reducer,
///     invariants: [Invariant(name: "non-negative-total", description: "the cart total is never negative") { $0.cart.total >= 0 }]
/// )
/// ```
public struct ReplayableApp: Sendable {
    /// The app id its logs record (`AppIdentity.id`).
    public let id: String
    /// The invariants, by name, with their descriptions.
    public let invariants: [(name: String, description: String)]
    let open: @Sendable (any LogReader, ReplayOptions) -> any AppReplay

    /// Registers an app.
    ///
    /// - Parameters:
    ///   - id: The app id its logs record.
    ///   - reducer: The app's reducer; its types are the app's state and action.
    ///   - current: The app's current identity (schema versions), for upgrading older logs.
    ///   - upcaster: Upgrades payloads recorded at older schema versions.
    ///   - invariants: Rules the state must keep, for `bisect --invariant`.
    ///   - redaction: The policy the app records under, so `verify` compares states after the
    ///     same scrub as the recorded snapshots.
    ///   - formats: How to show whole numbers of the state people read otherwise (money in
    ///     cents), as the app prints them.
    public init<State: Codable & Sendable & Equatable, Action: Codable & Sendable>(
        id: String,
        reducer: Reducer<State, Action>,
        current: AppIdentity? = nil,
        upcaster: Upcaster = .none,
        invariants: [Invariant<State>] = [],
        redaction: Redaction<State, Action> = .none,
        formats: [ValueFormat] = []
    ) {
        self.id = id
        self.invariants = invariants.map { ($0.name, $0.description) }
        self.open = { log, options in
            var options = options
            if let current { options.upgrades = SchemaUpgrades(app: current, upcaster: upcaster) }
            return TypedAppReplay(replayer: Replayer(log: log, reducer: reducer, options: options, redaction: redaction), invariants: invariants, formats: formats)
        }
    }
}
