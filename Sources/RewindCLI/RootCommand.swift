import ArgumentParser
import Foundation
import RewindLog
#if PostgreSQL
import RewindPostgres
#endif

/// `rewind`: the root of the command tree.
struct RootCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: (CommandLine.arguments.first as NSString?)?.lastPathComponent ?? "rewind",
            abstract: "Inspect, replay and debug Rewind logs.",
            discussion: """
                Apps this tool can replay: \(AppRegistry.apps.map(\.id).joined(separator: ", ").ifEmpty("none")).

                Exit codes: 0 ok; 1 the answer is "no" (verify found a divergence, bisect found \
                nothing, check found damage, schema --diff found an unaccounted change, \
                profile --baseline found a slower case); 2 usage or input errors.
                """,
            version: RewindTool.versionText,
            subcommands: AppRegistry.extraCommands + [
                SessionsCommand.self, SchemaCommand.self, LogCommand.self, ShowCommand.self, StatsCommand.self, CheckCommand.self,
                StateCommand.self, DiffCommand.self, WhyCommand.self, BlameCommand.self, BisectCommand.self, ShrinkCommand.self, VerifyCommand.self, ReplayCommand.self,
                ProfileCommand.self, ServeCommand.self, ExportCommand.self, ImportCommand.self, ReportCommand.self, ReportsCommand.self, CollectCommand.self,
            ] + storeCommands + agentCommands + [AppsCommand.self]
        )
    }
}

extension RewindTool {
    /// This release of Rewind (raise it when one is tagged).
    public static let version = "0.3.0"

    /// What `--version` prints: the release, and the versions of the formats this build reads
    /// and writes — what to compare when a log from elsewhere will not open.
    static var versionText: String {
        var formats = ["log files schema \(EventLog.latestSchemaVersion)", "exports format \(PortableLog.version)"]
        #if PostgreSQL
        formats.append("PostgreSQL stores schema \(PostgresLog.latestSchemaVersion)")
        #endif
        return "Rewind \(version) (\(formats.joined(separator: ", ")))"
    }
}

/// The subcommands that move logs between stores, when the tool is built with PostgreSQL.
private var storeCommands: [any ParsableCommand.Type] {
    #if PostgreSQL
    [PushCommand.self, PullCommand.self]
    #else
    []
    #endif
}

extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}

/// `rewind mcp`, in a build with the MCP trait (on by default).
private var agentCommands: [any ParsableCommand.Type] {
    #if MCP
    [MCPCommand.self]
    #else
    []
    #endif
}
