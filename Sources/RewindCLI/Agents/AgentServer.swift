#if MCP
import Foundation
import MCP
import RewindInspector

/// `rewind mcp`'s server: the read-only questions of ``AgentTool/all``, over the logs opened
/// at launch, each answered by the inspector's API for that log (``LogInspection``) — the
/// CLI's `--json` reports, validation, redaction and error messages — as one tool result.
///
/// Answers are capped (``maxAnswerBytes``: a larger one is refused, saying how to ask for less,
/// rather than cut into invalid JSON); the calls that replay take turns, two at a time, and
/// send `notifications/progress` to a client that gave a `progressToken`; a call the client
/// cancels (`notifications/cancelled`) stops its replay at the next cancellation check (every
/// 100 seqs).
struct AgentServer: Sendable {
    /// The logs, by the name each was given at launch.
    let logs: [(name: String, inspection: LogInspection)]
    /// The largest answer, in bytes of JSON.
    let maxAnswerBytes: Int
    /// How often a long call's progress is sent to a client that asked for it.
    static let progressInterval = Duration.milliseconds(500)
    private let turns = AnswerTurns(running: 2)

    init(logs: [(name: String, inspection: LogInspection)], maxAnswerBytes: Int) {
        self.logs = logs
        self.maxAnswerBytes = maxAnswerBytes
    }

    /// What the server tells the client at `initialize`.
    var instructions: String {
        """
        Answers questions about recorded sessions of an app built on Rewind (an event-sourced store): every action \
        with its source, cause and payload, and the app's state at any point by replay. Logs open: \
        \(logs.map(\.name).joined(separator: ", ")). To find a bug: `sessions`, then `bisect` with an invariant \
        or a condition, then `why` and `diff` at the seq it names; `state` and `blame` for a value's history.
        """
    }

    /// Serves on `transport` until the client closes it.
    func serve(on transport: AgentTransport, version: String) async throws {
        let server = Server(
            name: "rewind", version: version, title: "Rewind", instructions: instructions,
            capabilities: .init(tools: .init(listChanged: false))
        )
        await server.withMethodHandler(ListTools.self) { _ in
            ListTools.Result(tools: AgentTool.all.map(\.listed))
        }
        await server.withMethodHandler(CallTool.self) { [server] parameters in
            let token = parameters._meta?.progressToken
            return try await call(parameters.name, arguments: parameters.arguments ?? [:]) { progress in
                guard let token else { return }
                try? await server.notify(ProgressNotification.message(.init(
                    progressToken: token, progress: Double(progress.done), total: progress.total.map(Double.init), message: "\(progress.what): seq \(progress.done)"
                )))
            }
        }
        try await server.start(transport: transport)
        await server.waitUntilCompleted()
        // The client closed its end: what it asked before that is still answered.
        await transport.drained()
        await server.stop()
    }

    /// Answers one tool call. An unknown tool is a protocol error; everything else — arguments
    /// the tool does not take, values its command refuses, a log that cannot be read — is a
    /// tool result marked as an error, with the message the CLI would print.
    ///
    /// - Parameter report: Given the job's progress every ``progressInterval`` while it runs
    ///   (for a client that asked for progress with a `progressToken`).
    func call(
        _ name: String, arguments: [String: Value], report: (@Sendable (InspectorJob.Progress) async -> Void)? = nil
    ) async throws -> CallTool.Result {
        guard let tool = AgentTool.all.first(where: { $0.name == name }) else {
            throw MCPError.invalidParams("no tool '\(name)' (there are: \(AgentTool.all.map(\.name).joined(separator: ", ")))")
        }
        let call: InspectorCall, inspection: LogInspection
        do {
            (call, inspection) = try prepare(tool, arguments)
        } catch {
            return CallTool.Result(content: [.text(text: error.description, annotations: nil, _meta: nil)], isError: true)
        }
        let job = InspectorJob(answering: call)
        let reporting = report.map { report in
            Task {
                var last: InspectorJob.Progress?
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.progressInterval)
                    if let progress = job.progress, progress != last {
                        await report(progress)
                        last = progress
                    }
                }
            }
        }
        let response = await withTaskCancellationHandler {
            await turns.taking(inspection.isLong(call)) { await inspection.answer(call, in: job) }
        } onCancel: {
            job.cancel()
        }
        // No progress after the answer: the reporter is stopped, and waited for, first.
        reporting?.cancel()
        await reporting?.value
        try Task.checkCancellation()
        var body = String(decoding: response.body, as: UTF8.self)
        guard response.status == 200 else {
            let message = (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["error"] as? String
            return CallTool.Result(content: [.text(text: message ?? body, annotations: nil, _meta: nil)], isError: true)
        }
        if tool.name == "shrink" { body = Self.withoutFixtureBytes(body) }
        guard body.utf8.count <= maxAnswerBytes else {
            return CallTool.Result(content: [.text(
                text: "the answer is \(body.utf8.count) bytes, over this server's limit of \(maxAnswerBytes) (rewind mcp --max-answer-bytes): "
                    + "ask for less — a session, a from/to range, a smaller limit",
                annotations: nil, _meta: nil
            )], isError: true)
        }
        return CallTool.Result(content: [.text(text: body, annotations: nil, _meta: nil)])
    }

    /// The inspector call a tool call makes, on the log it names.
    private func prepare(_ tool: AgentTool, _ arguments: [String: Value]) throws(ToolError) -> (InspectorCall, LogInspection) {
        let known = tool.arguments.map(\.name) + ["log"]
        if let unknown = arguments.keys.sorted().first(where: { !known.contains($0) }) {
            throw ToolError("'\(tool.name)' has no argument '\(unknown)' (it takes: \(known.joined(separator: ", ")))")
        }
        let inspection: LogInspection
        if let given = arguments["log"] {
            guard let name = given.stringValue, let found = logs.first(where: { $0.name == name || ($0.name as NSString).lastPathComponent == name }) else {
                throw ToolError("log: no log \(given) is open here (open: \(logs.map(\.name).joined(separator: ", ")))")
            }
            inspection = found.inspection
        } else if logs.count == 1 {
            inspection = logs[0].inspection
        } else {
            throw ToolError("log: say which log (open: \(logs.map(\.name).joined(separator: ", ")))")
        }
        var parameters: [InspectorCall.Parameter] = []
        for argument in tool.arguments {
            guard let value = arguments[argument.name], !value.isNull else {
                if argument.required { throw ToolError("'\(tool.name)' needs the argument '\(argument.name)'") }
                continue
            }
            parameters.append(InspectorCall.Parameter(name: argument.name, value: try Self.text(of: value, as: argument)))
        }
        return (InspectorCall(endpoint: tool.endpoint, parameters: parameters), inspection)
    }

    /// An argument's value as the endpoint takes it, checked against the argument's kind.
    private static func text(of value: Value, as argument: AgentTool.Argument) throws(ToolError) -> String {
        switch (argument.kind, value) {
        case let (.integer, .int(number)): return String(number)
        case let (.integer, .double(number)) where number.rounded() == number && abs(number) < 9e15: return String(Int64(number))
        case let (.string, .string(text)): return text
        case let (.boolean, .bool(flag)): return flag ? "true" : "false"
        case let (.integers, .array(items)):
            var seqs: [String] = []
            for item in items {
                guard case let .int(number) = item else { throw ToolError("\(argument.name): give a list of seqs (whole numbers)") }
                seqs.append(String(number))
            }
            return seqs.joined(separator: ",")
        default:
            let kind = switch argument.kind {
            case .integer: "a whole number"
            case .string: "text"
            case .boolean: "true or false"
            case .integers: "a list of seqs"
            }
            let given = if case let .string(text) = value { "\"\(text)\"" } else { "\(value)" }
            throw ToolError("\(argument.name): give \(kind) (given \(given))")
        }
    }

    /// Shrink's answer without the fixture log's bytes, which an agent cannot use from its
    /// context: the kept events and the test are what it reads, and `rewind shrink --output`
    /// writes the fixture.
    private static func withoutFixtureBytes(_ body: String) -> String {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any], object["fixture"] != nil else { return body }
        object["fixture"] = nil
        object["fixtureNote"] = "the fixture log is not sent here: `rewind shrink LOG --output FILE` writes it"
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return body }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Why a tool call was refused before it ran.
struct ToolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The calls that replay run `running` at a time; the rest wait their turn, in order. Reading
/// calls never wait.
actor AnswerTurns {
    private let running: Int
    private var busy = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(running: Int) { self.running = running }

    /// How many calls wait for their turn (what a test tells a queued call by).
    var waitingCount: Int { waiting.count }

    func taking<T: Sendable>(_ long: Bool, _ work: @Sendable () async -> T) async -> T {
        guard long else { return await work() }
        if busy >= running {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy += 1
        }
        defer {
            if waiting.isEmpty { busy -= 1 } else { waiting.removeFirst().resume() }
        }
        return await work()
    }
}
#endif
