public import RewindCodingCore

/// The shapes of the action and state types a session was recorded with: what a later build
/// compares its own types with to say what changed (``SchemaDrift``), even when nobody bumped a
/// schema version.
///
/// The recorder records them (``RecorderConfiguration/typeShapes``); `EventLog.shapes(session:)`
/// reads them back. A log stores each distinct shape once, with its
/// `TypeShape.fingerprint`, and ``LogSession`` carries the fingerprints.
public struct SessionShapes: Sendable, Hashable, Codable {
    /// The action type's shape; `nil` when it was not recorded.
    public var action: TypeShape?
    /// The state type's shape; `nil` when it was not recorded.
    public var state: TypeShape?

    public init(action: TypeShape? = nil, state: TypeShape? = nil) {
        self.action = action
        self.state = state
    }

    /// Where a recorder gets the shapes it records.
    public enum Source: Sendable, Hashable {
        /// The shape `@BinaryCodable` wrote at compile time, else one found by probing the
        /// type's `init(from:)` (`TypeShape.of(_:probing:)`). Probing runs the type's own
        /// decoding code once per type and process, when the first store binds.
        case generatedOrProbed
        /// Only shapes written at compile time: a type without `@BinaryCodable` (or one
        /// whose fields are such types) is recorded as `TypeShape.opaque(name:reason:)`
        /// at that point. For apps with custom `init(from:)` code that must not run on
        /// placeholder values.
        case generatedOnly
        /// Record no shapes: the log cannot say what changed, only the declared versions.
        case none
    }

    /// The shapes of `State` and `Action` as `source` finds them.
    public static func of<State: Decodable, Action: Decodable>(state: State.Type, action: Action.Type, source: Source) -> SessionShapes {
        switch source {
        case .generatedOrProbed: SessionShapes(action: TypeShape.of(action), state: TypeShape.of(state))
        case .generatedOnly: SessionShapes(action: TypeShape.of(action, probing: false), state: TypeShape.of(state, probing: false))
        case .none: SessionShapes()
        }
    }
}
