import ArgumentParser
import RewindLog
import RewindReplay

/// `rewind schema PATH`: the action and state types a log's sessions were recorded with, and
/// with `--diff`, what changed in them since.
struct SchemaCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show the type structure the log's sessions were recorded with; --diff compares it with the app's types.",
        discussion: """
            Sessions recorded with the same app, versions and types are shown together. With --diff (in a replay tool \
            built with the app's types), each change since is named with what it does to recorded payloads, and the \
            command exits 1 when a change is not accounted for by a schema version bump and an upcaster — the \
            warning replaying would print.
            """
    )

    @OptionGroup var options: LogOptions
    @Option(help: "Only this session.") var session: Int64?
    @Flag(help: "Compare with the types of the app that recorded the log (needs a replay tool built with them).")
    var diff = false

    func validate() throws {
        try InputError.requirePositive(session, "--session", what: "a session number")
    }

    func report() throws -> Report {
        let log = try options.open()
        let sessions = try session.map { [try log.session($0)] } ?? log.sessions()
        guard diff else { return Report(groups: try Self.groups(of: sessions, in: log)) }
        guard !sessions.isEmpty else { throw ValidationError("\(log.path) holds no sessions to compare") }
        return try Self.compared(sessions, in: log)
    }

    /// `sessions` in groups that share an app, its versions and their shapes, in the order of
    /// their first sessions: each distinct shape is read and compared once.
    static func groups(of sessions: [LogSession], in log: any LogReader) throws -> [Group] {
        var groups: [Group] = [], index: [Group.Key: Int] = [:]
        for session in sessions {
            let key = Group.Key(app: session.app, action: session.actionFingerprint, state: session.stateFingerprint)
            if let at = index[key] {
                groups[at].sessions.append(session.id)
            } else {
                index[key] = groups.count
                groups.append(Group(key: key, sessions: [session.id], recorded: try log.shapes(session: session.id)))
            }
        }
        return groups
    }

    /// The groups of `sessions` (all of one app) compared with the registered app's types.
    static func compared(_ sessions: [LogSession], in log: any LogReader) throws -> Report {
        let report = Report(groups: try groups(of: sessions, in: log))
        return try ReplayFlags.parse([]).replay(log, sessions: sessions).run(Comparison(report: report))
    }
}

extension SchemaCommand {
    /// Sessions that share an app, its versions and their shapes.
    struct Group: Encodable {
        struct Key: Hashable {
            var app: AppIdentity
            var action: String?
            var state: String?
        }

        /// One type of the group: its shape as recorded and, with `--diff`, what changed.
        struct Part: Encodable {
            var typeName: String
            var fingerprint: String
            var shape: TypeShape
            /// Each record and enum in the shape, one a line, the root first.
            var definitions: [String]
            /// With `--diff`: the current build's fingerprint …
            var currentFingerprint: String?
            /// … what changed since, as the current build names it …
            var changes: [TypeShape.Change]?
            /// … and the warning replay gives for it, when the versions do not account for it.
            var drift: SchemaDrift?

            init(_ shape: TypeShape) {
                (typeName, fingerprint, self.shape, definitions) = (shape.typeName, shape.fingerprint, shape, shape.definitions)
            }
        }

        fileprivate var key: Key
        var sessions: [Int64]
        var app: String { key.app.id }
        var action: Part?
        var state: Part?

        init(key: Key, sessions: [Int64], recorded: SessionShapes) {
            self.key = key
            self.sessions = sessions
            action = recorded.action.map(Part.init)
            state = recorded.state.map(Part.init)
        }

        private enum CodingKeys: String, CodingKey {
            case sessions, app, appVersion, actionSchemaVersion, stateSchemaVersion, action, state
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sessions, forKey: .sessions)
            try container.encode(key.app.id, forKey: .app)
            try container.encode(key.app.version, forKey: .appVersion)
            try container.encode(key.app.actionSchemaVersion, forKey: .actionSchemaVersion)
            try container.encode(key.app.stateSchemaVersion, forKey: .stateSchemaVersion)
            try container.encodeIfPresent(action, forKey: .action)
            try container.encodeIfPresent(state, forKey: .state)
        }
    }

    /// The groups, in the order of their first sessions; with `--diff`, whether any drifted.
    struct Report: CommandReport {
        var groups: [Group]
        /// With `--diff`: whether a change is not accounted for by the versions and upcasters.
        var drifted: Bool?

        var answersNo: Bool { drifted == true }

        var text: String {
            guard !groups.isEmpty else { return "no sessions" }
            return groups.map(describe).joined(separator: "\n\n")
        }

        private func describe(_ group: Group) -> String {
            let app = group.key.app
            var lines = ["\(Rendering.sessionList(group.sessions)) (\(app.id) \(app.version), action schema \(app.actionSchemaVersion), state schema \(app.stateSchemaVersion))"]
            guard group.action != nil || group.state != nil else {
                return lines[0] + "\n  no type shapes recorded (recorded before log schema 8, or with typeShapes = .none)"
            }
            for (label, part) in [("action", group.action), ("state", group.state)] {
                guard let part else {
                    lines.append("  \(label): not recorded")
                    continue
                }
                lines.append("  \(label) \(part.typeName), fingerprint \(part.fingerprint)")
                guard let changes = part.changes, let current = part.currentFingerprint else {
                    lines += part.definitions.map { "    " + $0 }
                    continue
                }
                if current == part.fingerprint {
                    lines.append("    unchanged")
                } else if changes.isEmpty {
                    lines.append("    now \(current): differs only where a shape could not be seen (not compared)")
                } else {
                    lines.append("    now \(current):")
                    lines += changes.map { "      \($0)" }
                    lines.append("    " + (part.drift?.advice ?? "The schema versions and upcasters account for this."))
                }
            }
            return lines.joined(separator: "\n")
        }
    }

    /// The typed half of `--diff`: the app's current shapes against each group's.
    struct Comparison: ReplayingCommand {
        var report: Report

        func run<State: Codable & Sendable & Equatable, Action: Codable & Sendable>(with app: TypedAppReplay<State, Action>) throws -> Report {
            let current = SessionShapes.of(state: State.self, action: Action.self, source: app.replayer.options.typeShapes)
            var report = report
            var drifted = false
            for index in report.groups.indices {
                let group = report.groups[index]
                guard let first = group.sessions.first else { continue }
                let drifts = try app.replayer.schemaDrift(session: first)
                func compare(_ part: inout Group.Part?, with shape: TypeShape?, _ which: SchemaDrift.Part) {
                    guard var recorded = part, let shape else { return }
                    recorded.currentFingerprint = shape.fingerprint
                    recorded.changes = shape.changes(since: recorded.shape)
                    recorded.drift = drifts.first { $0.part == which }
                    drifted = drifted || recorded.drift != nil
                    part = recorded
                }
                compare(&report.groups[index].action, with: current.action, .action)
                compare(&report.groups[index].state, with: current.state, .state)
            }
            report.drifted = drifted
            return report
        }
    }
}
