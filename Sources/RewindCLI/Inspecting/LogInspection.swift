import ArgumentParser
import Foundation
import RewindInspector
import RewindLog

/// The inspector's API over one log (`rewind serve`): each call runs a command, which reads
/// the log `serve` opened once, read-only (``OpenLogs``), and answers with its report. A
/// recorder appending to the log meanwhile is seen by the next call, and no call can change
/// the log.
struct LogInspection: InspectorAPI {
    /// The log argument, as each call gives it to its command: a file's path, or a store's URL
    /// (password included: it is never shown, only parsed).
    let path: String
    /// The log as answers name it: the file's path, or the store's log without its password.
    let name: String
    /// `serve`'s `--key-file`, given to every call.
    let keyFile: String?
    /// `serve`'s `--skip-undecodable`, given to every call that replays.
    let skipUndecodable: Bool
    /// `serve`'s `--allow-drift`, given to every call that replays.
    let allowDrift: Bool

    /// The inspection of the log `path` names (see ``name``).
    init(path: String, name: String, keyFile: String?, skipUndecodable: Bool, allowDrift: Bool = false) {
        (self.path, self.name, self.keyFile, self.skipUndecodable, self.allowDrift) = (path, name, keyFile, skipUndecodable, allowDrift)
    }

    /// Whether the log is a store's.
    var readsStore: Bool {
        if case .store = LogLocation(argument: path) { true } else { false }
    }

    /// The log as a file made from it names it: the file's name, or the store's log.
    var shortName: String { readsStore ? name : (name as NSString).lastPathComponent }

    /// Every endpoint, by name (the path after `/api/`).
    static let endpoints: [String: InspectorEndpoint] = [
        "overview": .overview,
        "head": .head,
        "events": .events,
        "event": .reporting(ShowCommand.self, options: ["at"]),
        "why": .reporting(WhyCommand.self, options: ["at"]),
        "sessions": .reporting(SessionsCommand.self),
        "snapshots": .snapshots,
        "stats": .reporting(StatsCommand.self, options: ["session", "from", "to", "since", "until", "top", "buckets"]),
        "check": .reporting(CheckCommand.self),
        "state": .reporting(StateCommand.self, replays: true, options: ["at"]),
        "diff": .reporting(DiffCommand.self, replays: true, options: ["at", "from", "to"]),
        "blame": .reporting(BlameCommand.self, replays: true, options: ["path", "session", "from", "to"]),
        "bisect": .reporting(BisectCommand.self, replays: true, options: ["invariant", "where", "session"], flags: ["monotonic"]),
        "replay": .reporting(ReplayCommand.self, replays: true, options: ["without", "at"]),
        "verify": .reporting(VerifyCommand.self, replays: true, options: ["session"]),
        "profile": .reporting(ProfileCommand.self, replays: true, options: ["session", "from", "to", "slowest"]),
        "shrink": .shrink,
    ]

    func answer(_ call: InspectorCall, in job: InspectorJob) async -> InspectorResponse {
        // Reading and replaying block: they run on Dispatch's pool, not on the server's tasks.
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                let response = ReplayFlags.$reportsProgress.withValue(false) {
                    ReplayFlags.$job.withValue(job) { answerNow(call) }
                }
                continuation.resume(returning: response)
            }
        }
    }

    /// The calls that replay (shrink among them, which replays many times) are long: they take
    /// turns.
    func isLong(_ call: InspectorCall) -> Bool {
        Self.endpoints[call.endpoint]?.replays == true
    }

    private func answerNow(_ call: InspectorCall) -> InspectorResponse {
        guard let endpoint = Self.endpoints[call.endpoint] else {
            return .error("no API call '\(call.endpoint)' (there are: \(Self.endpoints.keys.sorted().joined(separator: ", ")))", status: 404)
        }
        do {
            let known = Set(endpoint.parameterNames)
            if let unknown = call.parameters.first(where: { !known.contains($0.name) }) {
                let takes = endpoint.parameterNames.isEmpty ? "it takes none" : "it takes: " + endpoint.parameterNames.joined(separator: ", ")
                throw BadCall(description: "'\(call.endpoint)' has no parameter '\(unknown.name)' (\(takes))")
            }
            return try endpoint.answer(call, self)
        } catch {
            return Self.response(for: error)
        }
    }

    /// `call` as the arguments of `Command`, parsed and validated by the command itself.
    ///
    /// - Parameter extra: Options the endpoint adds itself (never from the call).
    func parse<Command: ParsableCommand>(_ call: InspectorCall, extra: [String] = []) throws -> Command {
        guard let endpoint = Self.endpoints[call.endpoint] else { throw BadCall(description: "no API call '\(call.endpoint)'") }
        // --json: the answer is the JSON report, so commands skip what only their text needs.
        var options = extra + ["--json"]
        if let keyFile { options.append("--key-file=\(keyFile)") }
        if endpoint.replays && skipUndecodable { options.append("--skip-undecodable") }
        if endpoint.replays && allowDrift { options.append("--allow-drift") }
        var arguments = [String?](repeating: nil, count: endpoint.arguments.count)
        for parameter in call.parameters {
            if endpoint.options.contains(parameter.name) {
                options.append("--\(parameter.name)=\(parameter.value)")
            } else if endpoint.flags.contains(parameter.name) {
                switch parameter.value {
                case "", "true", "1": options.append("--\(parameter.name)")
                case "false", "0": break
                default: throw BadCall(description: "\(parameter.name)=\(parameter.value): give true or false")
                }
            } else if let index = endpoint.arguments.firstIndex(of: parameter.name) {
                arguments[index] = parameter.value
            }
        }
        if let missing = zip(endpoint.arguments, arguments).first(where: { $0.1 == nil }) {
            throw BadCall(description: "'\(call.endpoint)' needs the parameter '\(missing.0)'")
        }
        do {
            return try Command.parse(options + ["--", path] + arguments.compactMap { $0 })
        } catch {
            throw BadCall(description: Command.message(for: error))
        }
    }

    /// An error as the API answers it, with the message the CLI prints for it: 400 for a bad
    /// call, 404 for a seq or session the log does not hold, 422 for a log that cannot be read.
    static func response(for error: any Error) -> InspectorResponse {
        switch error {
        case let error as BadCall: return .error(error.description, status: 400)
        case let error as ReportsInspection.NotInStore: return .error(error.description, status: 404)
        case let error as EventLogError:
            switch error {
            case .seqNotFound, .sessionNotFound, .seqOutsideSession: return .error(error.description, status: 404)
            default: return .error(error.description, status: 422)
            }
        case is InputError, is ValidationError, is StatePredicate.Failure:
            return .error(RootCommand.message(for: error), status: 400)
        default:
            return .error(RootCommand.message(for: error), status: 500)
        }
    }
}
