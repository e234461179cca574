import ArgumentParser
import RewindLog

/// What `report create` and `report preview` share: the session, the trigger, the window and
/// the bound — the report's part of ``ReportOptions``.
struct ReportWindowOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The session to report.", valueName: "n")) var session: Int64
    @Option(help: ArgumentHelp("The seq the report is about: its window ends there.", valueName: "seq")) var around: Int64?
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

    /// The options for sealing to `key`.
    func options(key: ReportKey) -> ReportOptions {
        var options = ReportOptions(key: key)
        if let events { options.window = .events(events) }
        if let seconds { options.window = .seconds(seconds) }
        if wholeSession { options.window = .session }
        if let sizeLimit { options.sizeLimit = sizeLimit }
        options.sealsTrigger = sealTrigger
        return options
    }

    /// Why a report of the session is made: its crash or hang, or by hand.
    func reason(in log: any LogReader) throws -> ReportReason {
        try log.session(session).ending?.reportReason ?? ReportReason(kind: .manual)
    }

    /// The preview of the report, sealed to `key`.
    func preview(of log: any LogReader, key: ReportKey) throws -> ReportPreview {
        try log.previewReport(session: session, trigger: around, reason: reason(in: log), note: note, options: options(key: key))
    }
}
