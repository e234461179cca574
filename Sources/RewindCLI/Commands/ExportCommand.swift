import ArgumentParser
import Foundation
import RewindLog

/// `rewind export PATH --output FILE`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a log (or part of it) as portable JSON Lines, e.g. for a bug report."
    )

    @OptionGroup var options: LogOptions
    @Option(name: .shortAndLong, help: "The file to write.") var output: String
    @OptionGroup var selection: EventSelection

    func run() throws {
        let log = try options.open()
        let count = try log.export(to: URL(fileURLWithPath: output), filter: selection.filter(in: log))
        if options.json {
            print(Rendering.jsonText(["events": count, "output": output]))
        } else {
            print("exported \(count) events to \(output); import with: rewind import \(output) --output LOG")
        }
    }
}

/// `rewind import FILE --output PATH`.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create a log from a portable export (JSON Lines)."
    )

    @Argument(help: "The export to read.") var file: String
    @Option(name: .shortAndLong, help: "The log to create (must not exist).") var output: String

    func run() throws {
        let log = try EventLog.importLog(from: URL(fileURLWithPath: file), to: output)
        let range = try log.seqRange()
        try log.close()
        print("imported \(range.map { "seq \($0.lowerBound)…\($0.upperBound)" } ?? "no events") into \(output)")
    }
}
