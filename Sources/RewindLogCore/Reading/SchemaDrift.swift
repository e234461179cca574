import Foundation

/// How an action or state type changed since a session was recorded, found by comparing the
/// shape the session recorded (``SessionShapes``) with the current build's, and what to do
/// about it.
///
/// Rewind trusts ``AppIdentity/actionSchemaVersion`` and ``AppIdentity/stateSchemaVersion`` to
/// say when payloads need upgrading. A drift is what the versions do not say:
///
/// - the shapes differ and the versions are the same: someone changed the type and forgot the
///   version bump. Always reported, naming each change and what it does to recorded payloads.
/// - the session was recorded at an older version and no ``Upcaster`` is given for it: reported
///   only when a change can make recorded payloads fail or decode to other values (a case
///   added needs no upgrade).
/// - the session was recorded at an older version and an upcaster is given: not reported; the
///   upcaster is trusted with the difference.
/// - the session was recorded by a newer build (a higher version than the app's): reported.
/// - the app's current versions are not known (no ``SchemaUpgrades``): reported like the same
///   version.
///
/// Equal fingerprints are never a drift, and neither are differences that are only where one
/// side could not be seen (`TypeShape.opaque(name:reason:)`).
///
/// ```
/// rewind: warning: session 3's ShopAction changed since it was recorded at action schema version 1 (fingerprint 3f9c2a61d04b7e15, now 7a1b09e2c4d35f80):
///   CartAction: case `applyCoupon(code: String)` added
///   CartLine.unitPrice: Int → Decimal: recorded values may not decode, or decode to other values
///   Bump actionSchemaVersion to 2 and give an Upcaster(action:) that upgrades payloads recorded at version 1.
/// ```
public struct SchemaDrift: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Which of a session's types drifted.
    public enum Part: String, Sendable, Hashable, Codable {
        case action, state
    }

    /// The session whose recorded shape differs.
    public var session: Int64
    public var part: Part
    /// The current type's name (`ShopAction`).
    public var typeName: String
    /// The schema version the session was recorded at.
    public var recordedVersion: Int
    /// The app's current schema version, when known.
    public var currentVersion: Int?
    public var recordedFingerprint: String
    public var currentFingerprint: String
    /// What changed, as the current build names it.
    public var changes: [TypeShape.Change]
    /// What to do about it.
    public var advice: String

    /// The worst that the changes do to recorded payloads.
    public var effect: TypeShape.Change.Effect {
        changes.map(\.effect).max() ?? .decodesAsBefore
    }

    /// A headline, one line per change, and the advice.
    public var description: String {
        ([headline + ":"] + changes.map { "  \($0)" } + ["  " + advice]).joined(separator: "\n")
    }

    /// `session 3's ShopAction changed since it was recorded at action schema version 1 (…)`.
    public var headline: String {
        let version = "\(part.rawValue) schema version \(recordedVersion)"
        return "session \(session)'s \(typeName) changed since it was recorded at \(version) "
            + "(fingerprint \(recordedFingerprint), now \(currentFingerprint))"
    }

    /// What restoring and replaying do with a drift unless told otherwise: print it to
    /// standard error, as `rewind: warning: …`.
    public static let printWarning: @Sendable (SchemaDrift) -> Void = { drift in
        FileHandle.standardError.write(Data("rewind: warning: \(drift)\n".utf8))
    }

    /// The drift of one of `session`'s types, if it is one by the rules above (or, with
    /// `whatever: true`, whenever the shapes differ visibly: to explain a failure to decode).
    ///
    /// - Parameters:
    ///   - recorded: The shape the session recorded; `nil` when it recorded none.
    ///   - current: The current build's shape.
    ///   - currentVersion: The app's current schema version for this part, when known.
    ///   - hasUpcaster: Whether an upcaster for this part is given.
    static func find(
        session: LogSession, part: Part, recorded: TypeShape?, current: TypeShape,
        currentVersion: Int?, hasUpcaster: Bool, whatever: Bool = false
    ) -> SchemaDrift? {
        guard let recorded, recorded.fingerprint != current.fingerprint else { return nil }
        let changes = current.changes(since: recorded)
        guard !changes.isEmpty else { return nil }
        let recordedVersion = part == .action ? session.app.actionSchemaVersion : session.app.stateSchemaVersion
        let worst = changes.map(\.effect).max() ?? .decodesAsBefore
        let versionName = part == .action ? "actionSchemaVersion" : "stateSchemaVersion"
        let upcaster = part == .action ? "Upcaster(action:)" : "Upcaster(state:)"
        let advice: String
        switch currentVersion {
        case let current? where recordedVersion < current:
            guard whatever || (!hasUpcaster && worst > .decodesAsBefore) else { return nil }
            advice = hasUpcaster
                ? "The upcaster for version \(recordedVersion) must bring its payloads to this shape."
                : "Give an \(upcaster) that upgrades payloads recorded at version \(recordedVersion) (the app is at \(current))."
        case let current? where recordedVersion > current:
            advice = "It was recorded by a newer build (\(versionName) \(recordedVersion), this one is at \(current)): replay it with that build."
        case let current:
            let known = current == nil ? " (the app's current version is not known here)" : ""
            advice = worst == .decodesAsBefore
                ? "Recorded payloads decode as before; bump \(versionName) to \(recordedVersion + 1) so the log tells the builds apart\(known)."
                : "Bump \(versionName) to \(recordedVersion + 1) and give an \(upcaster) that upgrades payloads recorded at version \(recordedVersion)\(known)."
        }
        return SchemaDrift(
            session: session.id, part: part, typeName: current.typeName, recordedVersion: recordedVersion, currentVersion: currentVersion,
            recordedFingerprint: recorded.fingerprint, currentFingerprint: current.fingerprint, changes: changes, advice: advice
        )
    }

    /// The drifts of a session's action and state types by the rules above.
    static func find(session: LogSession, recorded: SessionShapes, current: SessionShapes, upgrades: SchemaUpgrades?) -> [SchemaDrift] {
        var drifts: [SchemaDrift] = []
        if let action = current.action,
           let drift = find(session: session, part: .action, recorded: recorded.action, current: action,
                            currentVersion: upgrades?.app.actionSchemaVersion, hasUpcaster: upgrades?.upcaster.action != nil) {
            drifts.append(drift)
        }
        if let state = current.state,
           let drift = find(session: session, part: .state, recorded: recorded.state, current: state,
                            currentVersion: upgrades?.app.stateSchemaVersion, hasUpcaster: upgrades?.upcaster.state != nil) {
            drifts.append(drift)
        }
        return drifts
    }
}

extension LogReader {
    /// How the action and state types changed since session `id` was recorded, by the rules of
    /// ``SchemaDrift``: empty when the session recorded no shapes, when they equal the current
    /// build's, or when the versions and `upgrades` account for the difference.
    ///
    /// ```swift
    /// for drift in try log.schemaDrift(session: 3, state: ShopState.self, action: ShopAction.self, upgrades: upgrades) {
    ///     print(drift)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - id: The session.
    ///   - state: The current state type.
    ///   - action: The current action type.
    ///   - upgrades: The app's current versions and upcasters; `nil` when not known.
    ///   - source: Where the current types' shapes come from (probing runs their decoding code).
    public func schemaDrift<State: Decodable, Action: Decodable>(
        session id: Int64,
        state: State.Type,
        action: Action.Type,
        upgrades: SchemaUpgrades? = nil,
        shapes source: SessionShapes.Source = .generatedOrProbed
    ) throws(EventLogError) -> [SchemaDrift] {
        let session = try session(id)
        guard session.actionFingerprint != nil || session.stateFingerprint != nil else { return [] }
        let current = SessionShapes.of(state: state, action: action, source: source)
        return SchemaDrift.find(session: session, recorded: try shapes(session: id), current: current, upgrades: upgrades)
    }
}
