import ArgumentParser
import Foundation
import RewindInspector
import RewindLog
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `rewind serve PATH`: the time-travel inspector in a browser.
struct ServeCommand: LogReadingCommand, AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Open a log in the time-travel inspector: a local web page with its timeline, states, diffs, invariants, what-if and verify.",
        discussion: """
            Prints a URL with a token made for this launch; open it in a browser. The server \
            listens on 127.0.0.1 only unless --host says otherwise, answers only to the address \
            it printed, and only reads: the log can be recording meanwhile (the page follows it). \
            With --json, prints {"url": …} on one line once it listens. Stop it with Ctrl-C.

            Given a collector's store (`rewind collect --store`: its SQLite file, or a \
            postgres:// URL with --reports), the page opens on its Reports view: the reports \
            grouped as `rewind reports` groups them, each one click from its timeline at its \
            trigger (opened with --key-file).
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @Option(help: "The address to listen on. Anything but loopback lets the network reach the log (the token still guards it).")
    var host = "127.0.0.1"
    @Option(help: "The port (0: any free port).") var port = 0
    @Flag(help: "Open the page in a browser ($BROWSER, open or xdg-open); says so where there is none.") var open = false
    @Option(help: ArgumentHelp("Open the page on this session's events (its filter set to it).", valueName: "n")) var session: Int64?
    @Flag(help: "PATH is a collector's store: open its Reports view (a SQLite store is recognised without it).") var reports = false
    @Option(help: ArgumentHelp(
        "How long a call may run before the page is handed a job to follow instead, its progress in the status line (default 1).",
        valueName: "seconds"
    )) var answerWithin: Double = 1

    /// Whether PATH is a collector's store, read by ``ReportsInspection`` rather than as a log.
    var servesReports: Bool { reports || ReportStore.isStore(at: options.path) }
    var readsOneLog: Bool { !servesReports }

    func validate() throws {
        try InputError.requirePositive(session, "--session", what: "a session number")
        guard (0...65_535).contains(port) else { throw InputError("--port \(port): give a port from 0 to 65535") }
        if servesReports, session != nil { throw InputError("--session: a collector's store has reports, not sessions; open one from the Reports view") }
        guard answerWithin.isFinite, (0.01...60).contains(answerWithin) else {
            throw InputError("--answer-within \(answerWithin): give seconds from 0.01 to 60")
        }
    }


    func run() async throws {
        Self.raiseOpenFileLimit()
        if servesReports { return try await serve(try await reportsInspection()) }
        // The log is opened once, here: one that cannot be read fails with the same message as
        // every other subcommand, not later in the browser, and every call reads through this
        // one opening (an older log's migrated copy is made once, not per call).
        let log = if case let .file(path) = options.location { try OpenLogs.keepFile(path, keys: options.keys()) } else { try options.open() }
        _ = try log.sessions()
        if let session { _ = try log.session(session) }
        _ = try options.keys()
        let inspection = LogInspection(path: options.path, name: log.path, keyFile: options.keyFile, skipUndecodable: replay.skipUndecodable, allowDrift: replay.allowDrift)
        let title = if case let .file(path) = options.location { (path as NSString).lastPathComponent } else { log.path }
        try await serve(Inspector(api: inspection, title: title, limits: limits))
    }

    /// The Reports view's API over the store PATH names, which must open (and the keys read)
    /// before the server listens: a wrong path fails here, not in the browser.
    private func reportsInspection() async throws -> Inspector {
        _ = try options.keys()
        let store = try await CollectorStores.open(options.path)
        let name = store.name
        do { _ = try await store.apps() } catch {
            await store.close()
            throw InputError("\(error)")
        }
        await store.close()
        let inspection = try ReportsInspection(
            store: options.path, name: name, keyFile: options.keyFile, skipUndecodable: replay.skipUndecodable, allowDrift: replay.allowDrift
        )
        let title = CollectorStores.isURL(options.path) ? name : (name as NSString).lastPathComponent
        return Inspector(api: inspection, title: "reports in \(title)", limits: limits)
    }

    /// The default limits, with `--answer-within`.
    private var limits: Inspector.Limits {
        var limits = Inspector.Limits()
        limits.answerWithin = .milliseconds(Int64((answerWithin * 1_000).rounded()))
        return limits
    }

    private func serve(_ inspector: Inspector) async throws {
        let json = options.json
        do {
            try await inspector.serve(host: host, port: UInt16(port)) { [host, open, session, path = options.location.description] listening in
                // The page reads a session to open on from the URL's fragment.
                let url = session.flatMap { URL(string: listening.absoluteString + "#session=\($0)") } ?? listening
                if !["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) {
                    FileHandle.standardError.write(Data("""
                        warning: listening on \(host), not on loopback: anyone who can reach this machine and \
                        learns the URL's token can read \(path)

                        """.utf8))
                }
                // Written straight to the file descriptor, not buffered: a script waiting for
                // the URL reads it at once.
                let line = json ? (try? JSONOutput.line(["url": url.absoluteString])) ?? "" : "Inspecting \(options.location) at \(url.absoluteString)\n(read-only; Ctrl-C stops)"
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
                if open, let trouble = BrowserOpener.open(url) { FileHandle.standardError.write(Data((trouble + "\n").utf8)) }
            }
        } catch let error as Inspector.ListenError {
            throw InputError("cannot listen on \(host):\(port): \(error)")
        }
    }

    /// Raises the soft limit on open files to the hard one (at most 65,536): each connection
    /// is a descriptor, and a soft limit of 1,024 (many shells' default) would let a few idle
    /// clients keep everyone else out.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return }
        // Darwin refuses more than OPEN_MAX when the hard limit is unlimited.
        let wanted = min(limit.rlim_max, 65_536)
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = wanted
        #if canImport(Darwin)
        if setrlimit(resource, &limit) != 0 { limit.rlim_cur = min(wanted, rlim_t(OPEN_MAX)) } else { return }
        #endif
        _ = setrlimit(resource, &limit)
    }
}
