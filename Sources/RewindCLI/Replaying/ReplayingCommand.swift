import RewindLog

/// A subcommand whose work needs the app's types (`state`, `diff`, `bisect`, …). Its typed half
/// lives in the command's own file; ``AppReplay/run(_:)`` calls it with the registered app's
/// `State` and `Action`.
protocol ReplayingCommand {
    /// What the typed half returns to the command's `run()`.
    associatedtype Output

    /// The command's work, with the app's types.
    func run<State: Codable & Sendable & Equatable, Action: Codable & Sendable>(
        with app: TypedAppReplay<State, Action>
    ) throws -> Output
}
