import ArgumentParser
import Foundation
import RewindLog
import RewindReplay

/// `rewind blame PATH --path cart.total`: every action that changed one value of the state.
struct BlameCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "blame",
        abstract: "List every action that changed the value at a path of the state: seq, case, source, old → new.",
        discussion: """
            --path names a value as `rewind state` prints the state: object keys (cart.total), \
            list indices (cart.lines[0].quantity) and count (cart.lines.count). Each session is \
            replayed once, from the snapshot nearest to --from; a value that is not there (an \
            optional left out, an index past the end, an enum in another case: \
            checkout.status.paying._0.total while idle) reads as —.
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @Option(help: ArgumentHelp("The value to follow, as `rewind state` prints the state: cart.total, cart.lines[0].quantity.", valueName: "path"))
    var path: String
    @OptionGroup var range: ReplayedSessions

    func validate() throws {
        do { _ = try StatePath(path) } catch { throw InputError("--path \(path): \(error)") }
    }

    func report() throws -> Report {
        let log = try options.open()
        let chosen = try range.sessions(in: log)
        return try replay.replay(log, sessions: chosen).run(Typed(command: self, sessions: chosen.map(\.id)))
    }

    /// The typed half, with the sessions chosen.
    struct Typed: ReplayingCommand {
        let command: BlameCommand
        let sessions: [Int64]

        func run<State, Action>(with app: TypedAppReplay<State, Action>) throws -> Report {
            let path = try StatePath(command.path)
            var report = Report(path: command.path)
            for session in sessions {
                try blame(path, session: session, with: app, into: &report)
            }
            return report
        }

        /// Replays `session` once, reading the value after each action: by reflection once the
        /// first state shows it finds what the JSON has, from the JSON otherwise.
        private func blame<State, Action>(_ path: StatePath, session: Int64, with app: TypedAppReplay<State, Action>, into report: inout Report) throws {
            var cursor = try app.replayer.steps(session: session, from: command.range.from)
            var reflects = true
            // Whether reflection has been seen to read a present value as the JSON has it: until
            // then, the first value it reads is checked against the JSON.
            var checked = false
            /// The value at the path in `state`, and whether it is the same as `previous`; a
            /// value is encoded only when it changed.
            func read(_ state: State, previous: (found: StatePath.Found, raw: Any?)?) throws -> (found: StatePath.Found, raw: Any?, changed: Bool) {
                if reflects {
                    let reached: Any, rest: Int?
                    switch path.reflect(state) {
                    case .absent:
                        return (.absent, nil, previous.map { $0.found != .absent } ?? true)
                    case let .value(value): (reached, rest) = (value, nil)
                    case let .stopped(value, at): (reached, rest) = (value, at)
                    }
                    if let previous, let raw = previous.raw, Self.same(reached, raw) { return (previous.found, raw, false) }
                    if let encoded = try Self.encoded(reached) {
                        var found = StatePath.Found.value(encoded)
                        if let rest {
                            do throws(StatePredicate.Failure) { found = try path.find(in: encoded, from: rest) } catch {
                                if previous == nil && !checked { throw InputError("--path \(path): \(error)") }
                                found = .absent
                            }
                        }
                        if checked || (try? path.find(in: JSONValue(encoding: state))) == found {
                            checked = true
                            return (found, reached, previous.map { $0.found != found } ?? true)
                        }
                    }
                }
                reflects = false
                let json = try JSONValue(encoding: state)
                let found: StatePath.Found
                do throws(StatePredicate.Failure) { found = try path.find(in: json) } catch {
                    // Checked on the first state; later, a key left out is an optional's absence.
                    if previous == nil { throw InputError("--path \(path): \(error)") }
                    found = .absent
                }
                return (found, nil, previous.map { $0.found != found } ?? true)
            }
            var current = try read(cursor.state, previous: nil)
            // A present value was checked against the JSON as it was read; an absent one (an
            // optional reflection found empty) is checked here, once.
            if reflects && !checked {
                let json = try JSONValue(encoding: cursor.state)
                let fromJSON: StatePath.Found
                do throws(StatePredicate.Failure) { fromJSON = try path.find(in: json) } catch {
                    // A key the JSON leaves out (an optional) that reflection finds absent is fine.
                    guard current.found == .absent else { throw InputError("--path \(path): \(error)") }
                    fromJSON = .absent
                }
                if fromJSON != current.found {
                    reflects = false
                    current = (fromJSON, nil, true)
                }
            }
            report.starts.append(.init(session: session, value: current.found.json))
            while let step = try cursor.next() {
                if let to = command.range.to, step.event.seq > to { break }
                report.eventsReplayed += 1
                let next = try read(step.state, previous: (current.found, current.raw))
                if next.changed {
                    report.changes.append(Change(step.event, old: current.found.json, new: next.found.json))
                }
                current = next
                if report.eventsReplayed % 4_096 == 0, ReplayFlags.job?.isCancelled == true { throw CancellationError() }
            }
        }

        /// Whether two values reflection found are equal: by `==` when their type is
        /// `Equatable`; otherwise never (they are then compared by their JSON).
        private static func same(_ value: Any, _ other: Any) -> Bool {
            guard let equatable = value as? any Equatable else { return false }
            return equatable.isEqual(to: other)
        }

        /// A value's JSON form, as `rewind state` shows it; `nil` for a value that is not
        /// `Encodable` (reflection then gives way to the JSON). Whole numbers, text and flags
        /// are made directly: through the encoders, each would cost microseconds, once per change.
        private static func encoded(_ value: Any) throws -> JSONValue? {
            switch value {
            case let value as Int: return .integer(Int64(value))
            case let value as Int64: return .integer(value)
            case let value as Int32: return .integer(Int64(value))
            case let value as String: return .string(value)
            case let value as Bool: return .bool(value)
            default:
                guard let encodable = value as? any Encodable else { return nil }
                return try JSONValue(encoding: encodable)
            }
        }
    }
}

extension Equatable {
    /// Whether `other` is a value of this type equal to this one.
    fileprivate func isEqual(to other: Any) -> Bool {
        (other as? Self).map { $0 == self } ?? false
    }
}

extension StatePath.Found {
    /// The value, `nil` when absent.
    fileprivate var json: JSONValue? {
        if case let .value(value) = self { value } else { nil }
    }
}

extension BlameCommand {
    /// One action that changed the value: where it is, what it was and where it was
    /// dispatched from (`rewind show --at SEQ` gives the rest), and the value before and after
    /// (absent: not there).
    struct Change: Encodable {
        var seq: Int64
        var session: Int64
        var action: String
        var file: String
        var line: UInt
        var old: JSONValue?
        var new: JSONValue?

        init(_ event: LoggedEvent, old: JSONValue?, new: JSONValue?) {
            (seq, session, action, file, line) = (event.seq, event.session, event.actionCase, event.source.file, event.source.line)
            (self.old, self.new) = (old, new)
        }
    }

    /// Where each session's replay began, with the value there.
    struct Start: Encodable {
        var session: Int64
        var value: JSONValue?
    }

    /// Every action that changed the value at `path`, oldest first.
    struct Report: CommandReport {
        var path: String
        var starts: [Start] = []
        var changes: [Change] = []
        var eventsReplayed = 0

        init(path: String) {
            self.path = path
        }

        var text: String {
            func shown(_ value: JSONValue?) -> String {
                guard let value else { return "—" }
                return (try? JSONOutput.line(value)) ?? "?"
            }
            var lines = ["\(path): changed by \(changes.count) of \(eventsReplayed) action\(eventsReplayed == 1 ? "" : "s")"
                + (starts.count == 1 ? " (session \(starts[0].session), from \(shown(starts[0].value)))" : " in \(starts.count) sessions")]
            lines += changes.map { change in
                "  seq \(change.seq)  \(change.action)  \(change.file):\(change.line)  \(shown(change.old)) → \(shown(change.new))"
            }
            return lines.joined(separator: "\n")
        }
    }
}
