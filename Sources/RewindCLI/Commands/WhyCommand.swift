import ArgumentParser
import Foundation
import RewindLog

/// `rewind why PATH --at SEQ`: the chain of causes that led to one event.
struct WhyCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "why",
        abstract: "Show why an event happened: its chain of causes, from the gesture that started it.",
        discussion: """
            Each step is the action whose middleware dispatched the next one, or whose effect sent \
            it. The chain starts at a root (a gesture or outside event) or, when a cause is not \
            known, says so: logs recorded before causes were, and causes lost in a gap or \
            recorded in another session. `rewind log --caused-by SEQ` lists the other way: \
            everything an event led to.
            """
    )

    @OptionGroup var options: LogOptions
    @Option(help: ArgumentHelp("The event's seq.", valueName: "seq")) var at: Int64?
    // `why PATH SEQ`, as the question is often asked, is taken too (hidden: a point is --at).
    @Argument(help: .hidden) var seqArgument: Int64?

    mutating func validate() throws {
        if let seqArgument, let at, seqArgument != at { throw ValidationError("two different seqs: \(seqArgument) and --at \(at)") }
        at = at ?? seqArgument
        guard let at else { throw ValidationError("give the event's seq with --at SEQ") }
        try InputError.requirePositive(at, "--at")
    }

    func report() throws -> Report {
        let log = try options.open()
        let chain = try log.causalChain(to: at ?? 0)
        return try Report(chain: chain, in: log)
    }

    /// The chain, its first event first.
    struct Report: CommandReport {
        /// The event asked about.
        var seq: Int64
        /// `root` when the chain begins at a gesture or outside event, `unknown` when a cause
        /// along it is not known.
        var start: String
        /// The events, the first of the chain first.
        var chain: [EventReport]

        init(chain: CausalChain, in log: any LogReader) throws {
            seq = chain.events.last?.seq ?? 0
            start = chain.start.rawValue
            self.chain = try chain.events.map { try EventReport($0, in: log) }
        }

        var text: String {
            var lines: [String] = []
            if start == "unknown", let first = chain.first {
                lines.append(first.seq == seq && chain.count == 1
                    ? "why seq \(seq): its cause is not known (recorded before causes were, or lost in a gap or another session)"
                    : "why seq \(seq): the chain back to seq \(first.seq), whose cause is not known")
            } else if chain.count == 1 {
                lines.append("why seq \(seq): nothing caused it; it is a root (a gesture or outside event)")
            } else {
                lines.append("why seq \(seq): \(chain.count - 1) step\(chain.count == 2 ? "" : "s") from the gesture that started it")
            }
            // A long chain (an effect that re-arms itself on each result) shows its ends; --json
            // has every step.
            let elided = chain.count > 32 ? 4..<(chain.count - 24) : 0..<0
            for (depth, event) in chain.enumerated() {
                if elided.contains(depth) {
                    if depth == elided.lowerBound { lines.append("     … \(elided.count) steps (all of them with --json) …") }
                    continue
                }
                let marker = depth == 0 ? (start == "root" ? "root " : "?    ") : String(repeating: " ", count: min(depth - 1, 20) * 2) + "└─ "
                lines.append("  " + marker + event.summary)
            }
            return lines.joined(separator: "\n")
        }
    }
}
