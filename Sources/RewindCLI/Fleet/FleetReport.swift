import Foundation

/// A fleet question's answer (`bisect` or `verify` with `--all-sessions`): one entry per
/// session, the sessions that answer listed first in the text.
struct FleetReport: CommandReport {
    /// What each session was asked, e.g. `non-negative-total broken`.
    var question: String
    /// The log or store, without its password.
    var source: String
    var appVersion: String?
    var install: String?
    /// The time window the sessions were recording in, as given.
    var since: String?
    var until: String?
    var sessions: Int
    /// Sessions whose answer is the one looked for: the condition found (bisect), a
    /// divergence (verify).
    var hits: Int
    /// Sessions that could not be replayed (each entry says why).
    var failed: Int
    var eventsFolded: Int
    var workers: Int
    var seconds: Double
    var entries: [FleetEntry]
    /// Whether a hit answers "no" (verify: a divergence) rather than "yes" (bisect: found).
    private var hitsAnswerNo: Bool
    /// How to get one session to look at closely, when they live in a store.
    private var pullHint: String?

    init(question: String, source: String, options: FleetOptions, workers: Int, seconds: Double, entries: [FleetEntry],
         hitsAnswerNo: Bool, pullHint: String?) {
        self.question = question
        self.source = source
        (appVersion, install, since, until) = (options.appVersion, options.install, options.window.since, options.window.until)
        (self.workers, self.seconds, self.entries, self.hitsAnswerNo, self.pullHint) = (workers, seconds, entries, hitsAnswerNo, pullHint)
        sessions = entries.count
        hits = entries.filter(\.status.isHit).count
        failed = entries.filter { $0.status == .failed }.count
        eventsFolded = entries.reduce(0) { $0 + $1.eventsFolded }
    }

    /// Bisect: no session has it; verify: a session diverged.
    var answersNo: Bool { hitsAnswerNo ? hits > 0 : hits == 0 }

    private enum CodingKeys: String, CodingKey {
        case question, source, appVersion, install, since, until, sessions, hits, failed, eventsFolded, workers, seconds, entries
    }

    var text: String {
        let scope = [appVersion.map { "app version \($0)" }, install.map { "install \($0)" }, since.map { "since \($0)" }, until.map { "until \($0)" }]
            .compactMap { $0 }.joined(separator: ", ")
        // A collector's store is asked report by report.
        let unit = entries.first?.session.report == nil ? "session" : "report"
        var lines = [
            "\(question): \(hits) of \(sessions) \(unit)\(sessions == 1 ? "" : "s") of \(source)\(scope.isEmpty ? "" : " (\(scope))")"
                + (failed > 0 ? "; \(failed) could not be replayed" : ""),
        ]
        for entry in entries where entry.status.isHit || entry.status == .failed {
            lines.append("  " + entry.summary)
        }
        let rate = seconds > 0 ? String(format: ", %.0f \(unit)s/s", Double(sessions) / seconds) : ""
        lines.append("(folded \(eventsFolded) events in \(String(format: "%.1f", seconds)) s with \(workers) worker\(workers == 1 ? "" : "s")\(rate))")
        if hits > 0, let pullHint { lines.append(pullHint) }
        return lines.joined(separator: "\n")
    }
}

/// One session's answer in a ``FleetReport``.
struct FleetEntry: Encodable, Sendable {
    enum Status: String, Codable, Sendable {
        /// Bisect: the condition first holds after an action (`seq`).
        case found
        /// Bisect: it holds in the session's initial state already.
        case atStart
        /// Bisect: it never holds.
        case notFound
        /// Verify: replay reproduces every recorded snapshot.
        case agrees
        /// Verify: the recorded state after `seq` differs from the replayed one.
        case diverged
        /// The session could not be read or replayed (`error`).
        case failed

        var isHit: Bool { self == .found || self == .atStart || self == .diverged }
    }

    var session: FleetSession
    var status: Status
    /// Where: the seq (numbered as in the session's own log), its action and source.
    var seq: Int64?
    var action: String?
    var source: String?
    var eventsFolded: Int
    var error: String?

    /// One session's answer, as a command gives it (the run adds which session).
    struct Answer: Sendable {
        var status: Status
        var seq: Int64?
        var event: EventReport?
        var eventsFolded: Int
    }

    init(session: FleetSession, answer: Answer) {
        self.session = session
        (status, seq, eventsFolded) = (answer.status, answer.seq, answer.eventsFolded)
        action = answer.event?.action
        source = answer.event.map { "\($0.file):\($0.line)" }
    }

    init(session: FleetSession, error: any Error) {
        self.session = session
        (status, eventsFolded) = (.failed, 0)
        self.error = "\(error)"
    }

    var summary: String {
        var name = session.report.map { "report \($0)" } ?? "session \(session.id)"
        if let uuid = session.uuid { name += " \(uuid.uuidString.lowercased())" }
        if let install = session.install { name += " install \(install)" }
        name += " v\(session.appVersion)"
        switch status {
        case .found, .diverged:
            let verb = status == .found ? "seq" : "diverged after seq"
            return "\(name): \(verb) \(seq.map(String.init) ?? "?") \(action ?? "") \(source.map { "at \($0)" } ?? "")"
                .trimmingCharacters(in: .whitespaces)
        case .atStart: return "\(name): already in its initial state"
        case .failed: return "\(name): could not be replayed: \(error ?? "unknown error")"
        case .notFound, .agrees: return "\(name): no"
        }
    }
}
