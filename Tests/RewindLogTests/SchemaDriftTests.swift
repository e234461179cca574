import Foundation
import GRDB
import Rewind
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

/// A log recorded with one version of an app's types, opened by builds whose types changed in
/// each of the ways a developer changes them.
@Suite("Schema drift")
struct SchemaDriftTests {
    // MARK: - The types as recorded, and as later builds have them

    enum V1 {
        enum Action: Codable, Sendable { case add(title: String), toggle(index: Int) }
        struct Item: Codable, Sendable, Equatable { var title: String; var done: Bool }
        struct State: Codable, Sendable, Equatable { var items: [Item] = []; var edits = 0 }
    }

    /// A case added.
    enum CaseAdded {
        enum Action: Codable, Sendable { case add(title: String), toggle(index: Int), clear }
    }

    /// A case's value renamed.
    enum FieldRenamed {
        enum Action: Codable, Sendable { case add(name: String), toggle(index: Int) }
    }

    /// A field's type changed.
    enum TypeChanged {
        struct Item: Codable, Sendable, Equatable { var title: String; var done: Int }
        struct State: Codable, Sendable, Equatable { var items: [Item] = []; var edits = 0 }
    }

    /// The enum made indirect, alone and with a recursive case.
    enum Indirect {
        indirect enum Action: Codable, Sendable { case add(title: String), toggle(index: Int) }
        indirect enum Recursive: Codable, Sendable { case add(title: String), toggle(index: Int), batch([Recursive]) }
    }

    /// The same types, declared in another order.
    enum Reordered {
        enum Action: Codable, Sendable { case toggle(index: Int), add(title: String) }
        struct Item: Codable, Sendable, Equatable { var done: Bool; var title: String }
        struct State: Codable, Sendable, Equatable { var edits = 0; var items: [Item] = [] }
    }

    /// Fields added with defaults: an optional one, and a required one.
    enum FieldsAdded {
        struct Item: Codable, Sendable, Equatable { var title: String; var done: Bool; var note: String? = nil }
        struct State: Codable, Sendable, Equatable { var items: [Item] = []; var edits = 0 }
        struct Prioritised: Codable, Sendable, Equatable { var title: String; var done: Bool; var priority: Int = 0 }
        struct PrioritisedState: Codable, Sendable, Equatable { var items: [Prioritised] = []; var edits = 0 }
    }

    static func reducer<State: Sendable, Action: Sendable>(_: State.Type, _: Action.Type) -> Reducer<State, Action> {
        Reducer { _, _ in }
    }

    /// A log with one session of the V1 app: an item added and toggled, the state holding it.
    static func recordV1(at path: String, version: Int = 1, shapes: SessionShapes.Source = .generatedOrProbed) throws -> EventLog {
        let log = try EventLog(path: path)
        let session = try log.beginSession(
            app: AppIdentity(id: "todo", actionSchemaVersion: version, stateSchemaVersion: version),
            initialState: V1.State(items: [V1.Item(title: "milk", done: true)], edits: 3),
            shapes: SessionShapes.of(state: V1.State.self, action: V1.Action.self, source: shapes)
        )
        try log.append([EventRecord(V1.Action.add(title: "eggs"), source: ActionSource()), EventRecord(V1.Action.toggle(index: 0), source: ActionSource())], to: session)
        return log
    }

    /// The drifts `log`'s session shows a build with `State` and `Action` at `version`.
    static func drifts<State: Decodable, Action: Decodable>(
        _ log: EventLog, _ state: State.Type, _ action: Action.Type, version: Int? = 1, upcaster: Upcaster = .none
    ) throws -> [SchemaDrift] {
        let upgrades = version.map { SchemaUpgrades(app: AppIdentity(id: "todo", actionSchemaVersion: $0, stateSchemaVersion: $0), upcaster: upcaster) }
        return try log.schemaDrift(session: 1, state: state, action: action, upgrades: upgrades)
    }

    /// Restores with `State` and `Action`, returning the drifts reported and the error, if any.
    /// These types have no generated shapes: they are probed, as an app that opts in has them.
    static func restore<State: Codable & Sendable, Action: Codable & Sendable>(
        _ log: EventLog, _ state: State.Type, _ action: Action.Type
    ) -> (drifts: [SchemaDrift], error: EventLogError?) {
        let reported = Recorded<SchemaDrift>()
        do throws(EventLogError) {
            _ = try log.restoredState(
                app: AppIdentity(id: "todo"), reducer: reducer(State.self, Action.self), typeShapes: .generatedOrProbed, onSchemaDrift: reported.append
            )
            return (reported.all, nil)
        } catch {
            return (reported.all, error)
        }
    }

    // MARK: - Each change, by name

    @Test("identical types: the same fingerprints, no warning, the state restores")
    func identical() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.recordV1(at: folder.file("log.rewind"))
        let session = try log.session(1)
        #expect(session.actionFingerprint == TypeShape.of(V1.Action.self).fingerprint)
        #expect(session.stateFingerprint == TypeShape.of(V1.State.self).fingerprint)
        #expect(try log.shapes(session: 1) == SessionShapes(action: TypeShape.of(V1.Action.self), state: TypeShape.of(V1.State.self)))
        #expect(try Self.drifts(log, V1.State.self, V1.Action.self).isEmpty)
        #expect(try Self.drifts(log, V1.State.self, V1.Action.self, version: nil).isEmpty)
        let restored = Self.restore(log, V1.State.self, V1.Action.self)
        #expect(restored.drifts.isEmpty && restored.error == nil)
    }

    @Test("reordered cases and fields: the same fingerprints, no warning")
    func reordered() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.recordV1(at: folder.file("log.rewind"))
        #expect(TypeShape.of(Reordered.Action.self).fingerprint == TypeShape.of(V1.Action.self).fingerprint)
        #expect(TypeShape.of(Reordered.State.self).fingerprint == TypeShape.of(V1.State.self).fingerprint)
        #expect(try Self.drifts(log, Reordered.State.self, Reordered.Action.self).isEmpty)
        let restored = Self.restore(log, Reordered.State.self, Reordered.Action.self)
        #expect(restored.drifts.isEmpty && restored.error == nil)
    }

    @Test("an enum made indirect encodes as before: no warning; with a recursive case added, the case is named")
    func indirect() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.recordV1(at: folder.file("log.rewind"))
        #expect(try Self.drifts(log, V1.State.self, Indirect.Action.self).isEmpty)
        #expect(Self.restore(log, V1.State.self, Indirect.Action.self).drifts.isEmpty)

        let drifts = try Self.drifts(log, V1.State.self, Indirect.Recursive.self)
        #expect(drifts.map(\.part) == [.action])
        #expect(drifts.first?.changes.map(\.description) == ["Recursive: case `batch(_0: [Recursive])` added"])
        #expect(drifts.first?.effect == .decodesAsBefore)
        #expect(drifts.first?.advice == "Recorded payloads decode as before; bump actionSchemaVersion to 2 so the log tells the builds apart.")
        let restored = Self.restore(log, V1.State.self, Indirect.Recursive.self)
        #expect(restored.error == nil)
        #expect(restored.drifts == drifts)
    }

    @Test("a case added: a warning that names it and says old payloads decode as before")
    func caseAdded() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.recordV1(at: folder.file("log.rewind"))
        let drift = try #require(try Self.drifts(log, V1.State.self, CaseAdded.Action.self).first)
        #expect(drift.session == 1 && drift.part == .action && drift.typeName == "Action")
        #expect(drift.recordedFingerprint == TypeShape.of(V1.Action.self).fingerprint)
        #expect(drift.currentFingerprint == TypeShape.of(CaseAdded.Action.self).fingerprint)
        #expect(drift.description == """
            session 1's Action changed since it was recorded at action schema version 1 \
            (fingerprint \(drift.recordedFingerprint), now \(drift.currentFingerprint)):
              Action: case `clear` added
              Recorded payloads decode as before; bump actionSchemaVersion to 2 so the log tells the builds apart.
            """)
        let restored = Self.restore(log, V1.State.self, CaseAdded.Action.self)
        #expect(restored.error == nil)
        #expect(restored.drifts == [drift])
    }

    @Test("a field renamed: a warning before restoring, and the decoding error says what changed and what to do")
    func fieldRenamed() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.recordV1(at: folder.file("log.rewind"))
        let drift = try #require(try Self.drifts(log, V1.State.self, FieldRenamed.Action.self).first)
        let change = "Action.add: field `title: String` removed and `name: String` added (renamed?): recorded values lack it and no longer decode (a default value does not help synthesized Codable)"
        #expect(drift.changes.map(\.description) == [change])
        #expect(drift.effect == .mayNotDecode)
        #expect(drift.advice == "Bump actionSchemaVersion to 2 and give an Upcaster(action:) that upgrades payloads recorded at version 1.")

        let restored = Self.restore(log, V1.State.self, FieldRenamed.Action.self)
        #expect(restored.drifts == [drift])
        guard case let .decodingFailed(_, seq, actionCase, _, reason)? = restored.error else {
            Issue.record("expected a decoding failure, got \(String(describing: restored.error))")
            return
        }
        #expect(seq == 1 && actionCase == "add")
        #expect(reason == "no value for key 'name'. Action changed since session 1 was recorded: \(change). \(drift.advice)")
    }

    @Test("a field's type changed: the state's drift is named, and the snapshot's decoding error says so")
    func typeChanged() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.recordV1(at: folder.file("log.rewind"))
        let drift = try #require(try Self.drifts(log, TypeChanged.State.self, V1.Action.self).first)
        #expect(drift.part == .state && drift.typeName == "State")
        #expect(drift.changes.map(\.description) == ["Item.done: Bool → Int: recorded values may not decode, or decode to other values"])
        #expect(drift.advice == "Bump stateSchemaVersion to 2 and give an Upcaster(state:) that upgrades payloads recorded at version 1.")
        let restored = Self.restore(log, TypeChanged.State.self, V1.Action.self)
        #expect(restored.drifts == [drift])
        guard case let .decodingFailed(_, _, actionCase, codingPath, reason)? = restored.error else {
            Issue.record("expected a decoding failure, got \(String(describing: restored.error))")
            return
        }
        #expect(actionCase == "initial snapshot" && codingPath == "items[0].done")
        #expect(reason.hasSuffix(". State changed since session 1 was recorded: Item.done: Bool → Int: recorded values may not decode, or decode to other values. \(drift.advice)"))
    }

    @Test("fields added with defaults: an optional one decodes as nil (a warning that says so), a required one does not decode")
    func fieldsAdded() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.recordV1(at: folder.file("log.rewind"))
        let optional = try #require(try Self.drifts(log, FieldsAdded.State.self, V1.Action.self).first)
        #expect(optional.changes.map(\.description) == ["Item: field `note: String?` added: recorded values decode it as nil"])
        #expect(optional.effect == .decodesDifferently)
        let restored = Self.restore(log, FieldsAdded.State.self, V1.Action.self)
        #expect(restored.error == nil && restored.drifts == [optional])

        let required = try #require(try Self.drifts(log, FieldsAdded.PrioritisedState.self, V1.Action.self).first)
        #expect(required.changes.map(\.description) == [
            "Prioritised: field `priority: Int` added: recorded values lack it and no longer decode (a default value does not help synthesized Codable)",
        ])
        let failed = Self.restore(log, FieldsAdded.PrioritisedState.self, V1.Action.self)
        guard case let .decodingFailed(_, _, _, _, reason)? = failed.error else {
            Issue.record("expected a decoding failure, got \(String(describing: failed.error))")
            return
        }
        #expect(reason.contains("no value for key 'priority'. PrioritisedState changed since session 1 was recorded: Prioritised: field `priority: Int` added"))
    }

    // MARK: - Versions and upcasters

    @Test("a version bump with an upcaster silences the warning; without one, only changes that need one are reported")
    func versionsAndUpcasters() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.recordV1(at: folder.file("log.rewind"))
        // Bumped, and an upcaster given: trusted with the difference, and it works.
        let renaming = Upcaster(action: { data, _ in
            Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: #""title""#, with: #""name""#).utf8)
        })
        #expect(try Self.drifts(log, V1.State.self, FieldRenamed.Action.self, version: 2, upcaster: renaming).isEmpty)
        let upgrades = SchemaUpgrades(app: AppIdentity(id: "todo", actionSchemaVersion: 2, stateSchemaVersion: 1), upcaster: renaming)
        let reported = Recorded<SchemaDrift>()
        _ = try log.restoredState(
            app: upgrades.app, reducer: Self.reducer(V1.State.self, FieldRenamed.Action.self), upcaster: renaming,
            typeShapes: .generatedOrProbed, onSchemaDrift: reported.append
        )
        #expect(reported.all.isEmpty)

        // Bumped without an upcaster: the change needs one.
        let missing = try #require(try Self.drifts(log, V1.State.self, FieldRenamed.Action.self, version: 2).first)
        #expect(missing.advice == "Give an Upcaster(action:) that upgrades payloads recorded at version 1 (the app is at 2).")
        // Bumped without an upcaster for a change that needs none: nothing to say.
        #expect(try Self.drifts(log, V1.State.self, CaseAdded.Action.self, version: 2).isEmpty)
        // Recorded by a newer build.
        let newer = try #require(try Self.drifts(log, V1.State.self, CaseAdded.Action.self, version: 0).first)
        #expect(newer.advice == "It was recorded by a newer build (actionSchemaVersion 1, this one is at 0): replay it with that build.")
        // Versions not known: reported as if the same, and said so.
        let unknown = try #require(try Self.drifts(log, V1.State.self, CaseAdded.Action.self, version: nil).first)
        #expect(unknown.currentVersion == nil)
        #expect(unknown.advice.hasSuffix("(the app's current version is not known here)."))
    }

    // MARK: - Where shapes come from

    @Test("sessions recorded without shapes, or whose shapes were not seen, warn of nothing")
    func nothingToCompare() throws {
        let folder = try TemporaryDirectory()
        let none = try Self.recordV1(at: folder.file("none.rewind"), shapes: .none)
        #expect(try none.session(1).actionFingerprint == nil)
        #expect(try none.shapes(session: 1) == SessionShapes())
        #expect(try Self.drifts(none, V1.State.self, FieldRenamed.Action.self).isEmpty)
        // Without generated shapes and without probing, the types are opaque: nothing is claimed.
        let opaque = try Self.recordV1(at: folder.file("opaque.rewind"), shapes: .generatedOnly)
        guard case .opaque? = try opaque.shapes(session: 1).action else {
            Issue.record("expected an opaque shape")
            return
        }
        #expect(try Self.drifts(opaque, V1.State.self, FieldRenamed.Action.self).isEmpty)
        // The error of a payload that does not decode then says nothing more.
        guard case let .decodingFailed(_, _, _, _, reason)? = Self.restore(opaque, V1.State.self, FieldRenamed.Action.self).error else {
            Issue.record("expected a decoding failure")
            return
        }
        #expect(reason == "no value for key 'name'")
    }

    @Test("the recorder records the shapes it is configured for, each distinct shape stored once")
    func recorderRecordsShapes() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let log = try EventLog(path: path)
        for source in [SessionShapes.Source.generatedOrProbed, .generatedOnly, .none, .generatedOrProbed] {
            var configuration = RecorderConfiguration<ShopState, ShopAction>()
            configuration.typeShapes = source
            let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "shop"), configuration: configuration)
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            store.dispatch(.cart(.clear))
            try await recorder.close()
        }
        let sessions = try log.sessions()
        // The shop's actions are @BinaryCodable: their generated shape equals the probed one.
        let action = TypeShape.of(ShopAction.self).fingerprint
        #expect(TypeShape.of(ShopAction.self, probing: false).fingerprint == action)
        #expect(sessions.map(\.actionFingerprint) == [action, action, nil, action])
        // Its state is not: without probing, it is opaque from the root.
        let state = TypeShape.of(ShopState.self).fingerprint, unseen = TypeShape.of(ShopState.self, probing: false)
        guard case .opaque = unseen else { Issue.record("expected ShopState to be opaque without probing, got \(unseen)"); return }
        #expect(sessions.map(\.stateFingerprint) == [state, unseen.fingerprint, nil, state])
        let rows = try log.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM type_shapes") }
        #expect(rows == 3, "the action's shape, the state's, and the state's opaque one")
    }

    // MARK: - Export, import, damage

    @Test("export keeps the shapes; import recomputes the fingerprints from them rather than trusting the file's")
    func exportImport() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.recordV1(at: folder.file("log.rewind"))
        let export = URL(fileURLWithPath: folder.file("log.jsonl"))
        #expect(try log.export(to: export) == 2)
        // A hand-edited export claims other fingerprints.
        let text = try String(contentsOf: export, encoding: .utf8)
        let fingerprint = try #require(try log.session(1).actionFingerprint)
        try text.replacingOccurrences(of: #""actionFingerprint":"\#(fingerprint)""#, with: #""actionFingerprint":"0000000000000000""#)
            .write(to: export, atomically: true, encoding: .utf8)
        #expect(try String(contentsOf: export, encoding: .utf8).contains("0000000000000000"))
        let imported = try EventLog.importLog(from: export, to: folder.file("imported.rewind"))
        #expect(try imported.session(1).actionFingerprint == fingerprint)
        #expect(try imported.session(1).stateFingerprint == log.session(1).stateFingerprint)
        #expect(try imported.shapes(session: 1) == log.shapes(session: 1))
        #expect(try Self.drifts(imported, V1.State.self, CaseAdded.Action.self).first?.changes.map(\.description) == ["Action: case `clear` added"])
    }

    @Test("an export whose shapes are not shapes is refused naming the line, and leaves nothing")
    func hostileExportShapes() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.recordV1(at: folder.file("log.rewind"))
        let export = URL(fileURLWithPath: folder.file("log.jsonl"))
        _ = try log.export(to: export)
        let lines = try String(contentsOf: export, encoding: .utf8).split(separator: "\n").map(String.init)
        let sessionLine = try #require(lines.firstIndex { $0.contains(#""type":"session""#) })
        let deep = String(repeating: #"{"optional":{"_0":"#, count: 100_000) + #"{"value":{"_0":"Int"}}"# + String(repeating: "}}", count: 100_000)
        for shapes in [#"{"action":{"bogus":1}}"#, #"{"action":"not a shape"}"#, #"{"state":{"record":{"name":7}}}"#, #"{"action":\#(deep)}"#] {
            var edited = lines
            let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[sessionLine].utf8)) as? [String: Any])
            var line = String(decoding: try JSONSerialization.data(withJSONObject: object.filter { $0.key != "shapes" }), as: UTF8.self)
            line.removeLast()
            edited[sessionLine] = line + #","shapes":"# + shapes + "}"
            let hostile = URL(fileURLWithPath: folder.file("hostile.jsonl"))
            try edited.joined(separator: "\n").write(to: hostile, atomically: true, encoding: .utf8)
            let target = folder.file("imported.rewind")
            let error = #expect(throws: EventLogError.self) { try EventLog.importLog(from: hostile, to: target) }
            guard case let .corrupt(_, detail)? = error else {
                Issue.record("expected a corrupt export, got \(String(describing: error))")
                continue
            }
            // (Nesting deeper than JSON decoding allows is refused as JSON, before its type.)
            #expect(detail.hasPrefix("line \(sessionLine + 1) is not a valid "), "\(detail)")
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    @Test("a damaged stored shape: reading it is a clear error; restoring and drift checks go on without it")
    func damagedShapeRow() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("log.rewind")
        try Self.recordV1(at: path).close()
        let deep = String(repeating: #"{"list":{"_0":"#, count: 100_000) + #"{"value":{"_0":"Int"}}"# + String(repeating: "}}", count: 100_000)
        for damage in ["not json", #"{"record":{}}"#, deep] {
            try DatabaseQueue(path: path).write { db in try db.execute(sql: "UPDATE type_shapes SET shape = ? WHERE id = 1", arguments: [damage]) }
            let log = try EventLog(path: path, mode: .readOnly)
            let error = #expect(throws: EventLogError.self) { try log.shapes(session: 1) }
            guard case let .corrupt(_, detail)? = error else {
                Issue.record("expected a corrupt log, got \(String(describing: error))")
                continue
            }
            #expect(detail.hasPrefix("session 1's action type shape cannot be read ("))
            let reported = Recorded<SchemaDrift>()
            let state = try log.restoredState(app: AppIdentity(id: "todo"), reducer: Self.reducer(V1.State.self, CaseAdded.Action.self), onSchemaDrift: reported.append)
            #expect(state == V1.State(items: [V1.Item(title: "milk", done: true)], edits: 3))
            #expect(reported.all.isEmpty)
        }
    }
}
