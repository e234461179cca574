import ArgumentParser
import Foundation
import RewindLog

/// `rewind report create LOG --session N [--around SEQ] --public-key-file F --output FILE`.
struct ReportCreateCommand: LogReadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Seal a report of one session of a log, as an app does in the field.",
        discussion: """
            The report keeps the events before --around (the session's last event by default), from the \
            nearest snapshot before them: --events N of them (2000 by default), --seconds S, or \
            --whole-session; the window is halved until the report fits --size-limit. A session that ended \
            crashed makes a crash report; any other a manual one.
            """
    )

    @OptionGroup var options: LogOptions
    @Option(help: ArgumentHelp("The session to report.", valueName: "n")) var session: Int64
    @Option(help: ArgumentHelp("The seq the report is about: its window ends there.", valueName: "seq")) var around: Int64?
    @Option(help: ArgumentHelp("The team's public key: a file holding its `ID BASE64` line (keygen's FILE.pub).", valueName: "path"))
    var publicKeyFile: String
    @Option(name: .shortAndLong, help: "The report file to write (must not exist).") var output: String
    @Option(help: ArgumentHelp("Keep this many events up to the trigger.", valueName: "n")) var events: Int?
    @Option(help: ArgumentHelp("Keep the events of this many seconds up to the trigger.", valueName: "s")) var seconds: Double?
    @Flag(help: "Keep the whole session up to the trigger.") var wholeSession = false
    @Option(help: ArgumentHelp("The largest report, in bytes (524288 by default).", valueName: "bytes")) var sizeLimit: Int?
    @Option(help: ArgumentHelp("A note to seal with it.", valueName: "text")) var note: String?
    @Flag(help: "Seal the trigger's action case and source too, rather than leave them in the clear header.") var sealTrigger = false

    func validate() throws {
        try InputError.requirePositive(session, "--session", what: "a session number")
        try InputError.requirePositive(around, "--around")
        try InputError.requirePositive(events, "--events", what: "a count")
        try InputError.requirePositive(sizeLimit, "--size-limit", what: "a size")
        if let seconds, !(seconds > 0 && seconds.isFinite) { throw InputError("--seconds \(seconds): give a number of seconds above 0") }
        if [events != nil, seconds != nil, wholeSession].filter({ $0 }).count > 1 {
            throw InputError("--events, --seconds and --whole-session each choose the window: give one")
        }
    }

    func run() throws {
        let key = try Self.readPublicKey(publicKeyFile)
        var reportOptions = ReportOptions(key: key)
        if let events { reportOptions.window = .events(events) }
        if let seconds { reportOptions.window = .seconds(seconds) }
        if wholeSession { reportOptions.window = .session }
        if let sizeLimit { reportOptions.sizeLimit = sizeLimit }
        reportOptions.sealsTrigger = sealTrigger
        let log = try options.open()
        let ending = try log.session(session).ending
        let reason = ending?.crash.map { ReportReason(kind: .crash, name: $0.signalName) } ?? ReportReason(kind: .manual)
        let sealed = try log.sealReport(session: session, trigger: around, reason: reason, note: note, options: reportOptions)
        try ReportKeygenCommand.createExclusively(output, data: sealed, mode: 0o600, what: "the report")
        let report = try FieldReport(bytes: sealed, path: output)
        try options.print(Report(output: output, bytes: sealed.count, header: report.header))
    }

    /// The public key in `path`: its first line that is not blank or a comment.
    static func readPublicKey(_ path: String) throws -> ReportKey {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InputError("--public-key-file \(path): \(FileManager.default.fileExists(atPath: path) ? "cannot be read as text" : "no such file")")
        }
        let line = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty && !$0.hasPrefix("#") }
        do {
            return try ReportKey(line: line ?? "")
        } catch {
            throw InputError("--public-key-file \(path): \(error.reason)")
        }
    }
}

extension ReportCreateCommand {
    /// The report written.
    struct Report: CommandReport {
        var output: String
        var bytes: Int
        var header: ReportHeader

        var text: String {
            "sealed a \(header.reason) report of \(bytes) bytes to key '\(header.keyID)' in \(output); read it with: rewind report show \(output) --key-file KEYS"
        }
    }
}
