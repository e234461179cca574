#if MCP
import ArgumentParser
import Foundation
import RewindLog
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `rewind mcp LOG…`: the read-only questions, for AI agents, over the Model Context Protocol.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Answer an AI agent's questions about logs over the Model Context Protocol (stdio).",
        discussion: """
            Serves the read-only questions — sessions, log pages, show, state, diff, why, blame, \
            bisect, verify, shrink, profile — as MCP tools on standard input and output, for an \
            agent (Claude Code, an IDE) that starts it: their answers are the --json reports of \
            the commands of the same names. Only the logs named here are opened, read-only. \
            Standard output carries JSON-RPC alone; messages go to standard error. \
            It ends when the client closes standard input.

            Register it with a client as a stdio server: command `rewind`, arguments \
            `mcp /path/to/app.rewind`.
            """
    )

    @Argument(help: ArgumentHelp("The logs to answer about: files, or logs of a PostgreSQL store (postgres://…).", valueName: "log"))
    var logs: [String] = []

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp("Read encrypted sessions and sealed reports with the keys in this file (`ID BASE64` lines).", valueName: "path")
    )
    var keyFile: String?

    @OptionGroup var replay: ReplayFlags

    @Option(help: ArgumentHelp("The largest answer, in bytes of JSON; a larger one is refused with how to ask for less.", valueName: "bytes"))
    var maxAnswerBytes = 1 << 20

    func validate() throws {
        guard !logs.isEmpty else { throw ValidationError("name at least one log to answer about") }
        guard (1_024...(64 << 20)).contains(maxAnswerBytes) else { throw ValidationError("--max-answer-bytes is 1024 to 67108864") }
        if let repeated = Dictionary(grouping: logs, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw ValidationError("\(LogLocation.redacted(repeated)) is named twice")
        }
    }

    func run() async throws {
        // JSON-RPC alone on standard output: the protocol gets its own copy of the descriptor,
        // and standard output becomes standard error, so that nothing else printed — by this
        // tool or a library — can reach the client as a message.
        let protocolOutput = dup(STDOUT_FILENO)
        guard protocolOutput >= 0, dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
            throw InputError("cannot set standard output aside for the protocol: \(String(cString: strerror(errno)))")
        }
        let keys = try LogOptions.keys(keyFile: keyFile)
        var opened: [(name: String, inspection: LogInspection)] = []
        for path in logs {
            // Each log is opened once, here, as `serve` opens its log: one that cannot be read
            // fails now, with the CLI's message, not at the agent's first question.
            let log: any LogReader
            switch LogLocation(argument: path) {
            case .file:
                log = try OpenLogs.keepFile(path, keys: keys)
            case let .store(url):
                try await OpenLogs.openStore(url, keys: keys)
                log = try LogOptions.parse([path]).open()
            }
            _ = try log.sessions()
            let inspection = LogInspection(path: path, name: log.path, keyFile: keyFile, skipUndecodable: replay.skipUndecodable, allowDrift: replay.allowDrift)
            opened.append((name: LogLocation.redacted(path), inspection: inspection))
        }
        let server = AgentServer(logs: opened, maxAnswerBytes: maxAnswerBytes)
        FileHandle.standardError.write(Data("rewind mcp: answering about \(opened.map(\.name).joined(separator: ", ")) on standard input and output\n".utf8))
        try await server.serve(on: AgentTransport(input: STDIN_FILENO, output: protocolOutput), version: RewindTool.version)
    }
}
#endif
