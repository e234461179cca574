public import ArgumentParser
import Foundation

/// The `rewind` command line, as a library: an app's own replay tool is an executable target
/// whose whole source is
///
/// ```swift
/// import RewindCLI
/// await RewindTool.main(apps: [ReplayableApp(id: "com.example.myapp", reducer: appReducer)])
/// ```
///
/// and it gets every subcommand for its logs. Subcommands that need no app types (`sessions`,
/// `log`, `show`, `stats`, `check`, `export`, `import`) work on any Rewind log.
///
/// Exit codes: 0 ok; 1 the answer is "no" (`verify` found a divergence, `bisect` found nothing,
/// `check` found damage); 2 usage or input errors (a missing file, a file that is not a log,
/// an unknown seq, an unregistered app).
public enum RewindTool {
    /// Runs the tool with these apps (and any extra subcommands, such as the bundled `demo`),
    /// then exits.
    ///
    /// - Parameters:
    ///   - apps: The apps whose logs this tool can replay.
    ///   - extraCommands: More subcommands to offer.
    public static func main(apps: [ReplayableApp], extraCommands: [any ParsableCommand.Type] = []) async -> Never {
        AppRegistry.register(apps: apps, extraCommands: extraCommands)
        Interruption.install()
        do {
            var command = try RootCommand.parseAsRoot()
            if let reading = command as? any LogReadingCommand { try await reading.prepareLog() }
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            exit(0)
        } catch let code as ExitCode {
            exit(code.rawValue)
        } catch {
            // Help and version requests exit 0 the usual way.
            if RootCommand.exitCode(for: error) == .success { RootCommand.exit(withError: error) }
            FileHandle.standardError.write(Data((RootCommand.fullMessage(for: error) + "\n").utf8))
            exit(2)
        }
    }
}
