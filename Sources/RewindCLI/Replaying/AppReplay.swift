import RewindLog
/// A registered app, opened on a log, without its types showing: the non-generic command tree
/// hands it a ``ReplayingCommand``, and the app runs the command's typed half with its own
/// `State` and `Action`.
protocol AppReplay: Sendable {
    /// Runs `command`'s typed half with the app's types.
    func run<Command: ReplayingCommand>(_ command: Command) throws -> Command.Output

    /// How the sessions' recorded types differ from this build's (``SchemaDrift``).
    func schemaDrift(sessions: [Int64]) throws -> [SchemaDrift]
}
