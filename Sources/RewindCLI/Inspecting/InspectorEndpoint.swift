import ArgumentParser
import Foundation
import RewindInspector
import RewindLog

/// One call of the inspector's API: the parameters it takes and how it answers.
///
/// Most endpoints are a ``ReportingCommand`` run with the call's parameters as its options
/// (`GET /api/state?at=12` is `rewind state PATH --at=12 --json`): the call is validated by the
/// command's own parser and answered with its report, so every shape and error message is
/// the CLI's. Parameters are given to the command only by name, as `--name=value` before a
/// `--`, so a value can never become another option.
struct InspectorEndpoint: Sendable {
    /// Parameters passed as the command's `--name=value` options (a name may repeat).
    var options: [String] = []
    /// Parameters passed as the command's `--name` flags (`true`, `1` or empty: on).
    var flags: [String] = []
    /// Parameters passed as the command's arguments after the log's path, in this order.
    var arguments: [String] = []
    /// Parameters the endpoint reads itself (paging).
    var own: [String] = []
    /// Whether the command replays (takes `--skip-undecodable`).
    var replays = false
    let answer: @Sendable (_ call: InspectorCall, _ inspection: LogInspection) throws -> InspectorResponse

    /// The names of every parameter the endpoint takes.
    var parameterNames: [String] { options + flags + arguments + own }

    /// The endpoint that answers with `command`'s report.
    static func reporting<Command: ReportingCommand>(
        _ command: Command.Type, replays: Bool = false, options: [String] = [], flags: [String] = [], arguments: [String] = []
    ) -> InspectorEndpoint {
        InspectorEndpoint(options: options, flags: flags, arguments: arguments, replays: replays) { call, inspection in
            let command: Command = try inspection.parse(call)
            return try .json(encoding: command.report())
        }
    }
}

/// A call the API refuses: a parameter it does not take, or a value the command rejects (400).
struct BadCall: Error, CustomStringConvertible {
    var description: String
}

extension InspectorResponse {
    /// `value` as the API's JSON: `--json`'s encoding, on one line.
    static func json(encoding value: some Encodable) throws -> InspectorResponse {
        .json(Data(try JSONOutput.line(value).utf8))
    }
}

extension InspectorCall {
    /// The integer parameter `name`, if given, checked against `range`.
    func integer(_ name: String, in range: ClosedRange<Int64>) throws -> Int64? {
        guard let text = self[name] else { return nil }
        guard let value = Int64(text), range.contains(value) else {
            throw BadCall(description: "\(name)=\(text): give a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A comma-separated list of seqs (`8,20`), at most `limit` of them, each at least 1.
    func seqs(_ name: String, limit: Int) throws -> Set<Int64> {
        guard let text = self[name], !text.isEmpty else { return [] }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= limit else { throw BadCall(description: "\(name): at most \(limit) seqs") }
        return Set(try parts.map { part in
            guard let seq = Int64(part), seq >= 1 else { throw BadCall(description: "\(name)=\(text): give seqs (whole numbers from 1), separated by commas") }
            return seq
        })
    }
}
