import ArgumentParser

/// The `rewind` command: records, reads and replays Rewind logs.
@main
struct RewindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewind",
        abstract: "Record, inspect and replay the history of a unidirectional-dataflow Swift app.",
        subcommands: [DemoCommand.self]
    )
}
