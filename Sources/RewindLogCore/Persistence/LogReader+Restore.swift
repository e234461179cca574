import Foundation
public import Rewind

extension LogReader {
    /// The state an app had when its latest session in this log ended: the session's latest
    /// snapshot, with the events after it folded through `reducer` — so an app can use the log
    /// as its only storage.
    ///
    /// ```swift
    /// let log = try EventLog(path: url.path)
    /// let state = try log.restoredState(app: identity, reducer: Shop.reducer) ?? ShopState()
    /// let recorder = Recorder<ShopState, ShopAction>(log: log, app: identity)
    /// let store = Store(initialState: state, reducer: Shop.reducer, middleware: recorder.middleware)
    /// ```
    ///
    /// Payloads recorded with older schema versions than `app` declares go through `upcaster`
    /// first. When the session recorded its types' shapes and they differ from the current
    /// build's in a way the versions and `upcaster` do not account for (``SchemaDrift``), the
    /// drift is handed to `onSchemaDrift` before restoring; a payload that then fails to
    /// decode says what changed in its error.
    ///
    /// - Parameters:
    ///   - app: The app whose latest session to restore (matched by ``AppIdentity/id``), with
    ///     its current schema versions.
    ///   - reducer: The app's reducer.
    ///   - upcaster: Upgrades old payloads.
    ///   - typeShapes: Where the current types' shapes come from, to compare them with the
    ///     recorded ones: by default only generated ones, since this runs in the app (probing
    ///     would run its `init(from:)` on placeholder values); `.none` skips the check.
    ///   - onSchemaDrift: Told of each drift; by default it prints a warning to standard error.
    /// - Returns: The state, or `nil` when the log has no session of this app.
    /// - Throws: ``EventLogError/decodingFailed(path:seq:actionCase:codingPath:reason:)`` naming
    ///   the seq, the case and the versions when a payload does not decode.
    public func restoredState<State: Decodable & Sendable, Action: Decodable & Sendable>(
        app: AppIdentity,
        reducer: Reducer<State, Action>,
        upcaster: Upcaster = .none,
        typeShapes: SessionShapes.Source = .generatedOnly,
        onSchemaDrift: @Sendable (SchemaDrift) -> Void = SchemaDrift.printWarning
    ) throws(EventLogError) -> State? {
        guard let session = try sessions().last(where: { $0.app.id == app.id }) else { return nil }
        let upgrades = SchemaUpgrades(app: app, upcaster: upcaster)
        SessionReader.reportDrift(
            of: session, in: self, state: State.self, action: Action.self, upgrades: upgrades, typeShapes: typeShapes, to: onSchemaDrift
        )
        let reader = try SessionReader(log: self, session: session, upgrades: upgrades, typeShapes: typeShapes)
        return try reader.fold(reducer, from: reader.state(State.self, atOrBefore: reader.lastSeq), through: reader.lastSeq)
    }
}
