import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay

/// What a `record` child said before it died: what it promised, when it dispatched what, and
/// (after a simulated power cut) when the power went.
///
/// The child prints `flushed <seq>` for every promise (a flush returned, or a synchronous
/// dispatch did), `dispatched <seq> <ns>` at most once a millisecond (the seq its last dispatch
/// took and when, on the system's monotonic clock), and the power-cut VFS prints `cut <ns>`.
struct ChildReport {
    var promised: Int64 = 0
    var promises = 0
    /// `(seq, ns)` marks, in order.
    var dispatches: [(seq: Int64, time: UInt64)] = []
    var cutTime: UInt64?
    /// The seq the child's first action followed, and the seed of its script.
    var script: (base: Int64, seed: UInt64)?
    private var pending = Data()

    /// Takes a chunk of the child's output.
    mutating func take(_ chunk: Data) {
        pending += chunk
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let words = String(decoding: pending[..<newline], as: UTF8.self).split(separator: " ")
            pending.removeSubrange(...newline)
            switch (words.first, words.count) {
            case ("flushed", 2):
                if let seq = Int64(words[1]) { promised = max(promised, seq); promises += 1 }
            case ("dispatched", 3):
                if let seq = Int64(words[1]), let time = UInt64(words[2]) { dispatches.append((seq, time)) }
            case ("cut", 2):
                cutTime = UInt64(words[1])
            case ("base", 3):
                if let base = Int64(words[1]), let seed = UInt64(words[2]) { script = (base, seed) }
            default:
                break
            }
        }
    }

    /// The actions dispatched but not in the log (the log ends at `last`), and at most how long
    /// before `end` the oldest of them was dispatched, in milliseconds: a bound from the last
    /// mark still in the log, as tight as the marks are close (a millisecond apart while the
    /// child dispatches, further when it waits for room).
    func lost(logEndsAt last: Int64, end: UInt64) -> (count: Int64, oldestAgeMs: Double)? {
        guard let dispatched = dispatches.last?.seq, dispatched > last else { return nil }
        // The first lost action (seq last + 1) was dispatched no earlier than the last mark
        // still in the log: its age is at most `end` minus that mark's time.
        let before = dispatches.last { $0.seq <= last }?.time ?? dispatches.first?.time ?? end
        return (dispatched - last, Double(end &- min(before, end)) / 1_000_000)
    }

    /// For the child: the monotonic clock both processes read.
    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }
}

/// Losses of actions nobody was promised, per durability mode: what the runs measure against
/// what the docs say a crash may lose.
struct LossTally {
    private var byMode: [String: (rounds: Int, lostRounds: Int, actions: Int64, most: Int64, oldestMs: Double)] = [:]

    mutating func add(mode: String, lost: (count: Int64, oldestAgeMs: Double)?) {
        var entry = byMode[mode] ?? (0, 0, 0, 0, 0)
        entry.rounds += 1
        if let lost {
            entry.lostRounds += 1
            entry.actions += lost.count
            entry.most = max(entry.most, lost.count)
            entry.oldestMs = max(entry.oldestMs, lost.oldestAgeMs)
        }
        byMode[mode] = entry
    }

    var summary: String {
        byMode.keys.sorted().map { mode in
            let entry = byMode[mode]!
            guard entry.lostRounds > 0 else { return "\(mode): nothing lost in \(entry.rounds) rounds" }
            return """
                \(mode): unpromised actions lost in \(entry.lostRounds) of \(entry.rounds) rounds, \(entry.actions) in all, \
                at most \(entry.most) at once, the oldest dispatched at most \(String(format: "%.1f", entry.oldestMs)) ms before the end
                """
        }.joined(separator: "; ")
    }
}

/// The checks after each kill or power cut, and their running figures.
struct LogChecker {
    let path: String
    private var sessionsBefore: Int64 = 0
    private(set) var verifiedEvents = 0
    private(set) var verifiedSnapshots = 0

    init(path: String) {
        self.path = path
    }

    /// The scripts children recorded, by seed (each is generated once).
    private var scripts: [UInt64: [DispatchedAction<ShopAction>]] = [:]

    /// Opens the log and checks it: sound, seqs from 1 without gaps, no recorded loss, every
    /// promised action present — and, for the round's child (`said`), every action it was
    /// promised the one its seeded script dispatched, case, payload and source — and the
    /// sessions recorded since the last check replay and reproduce their snapshots. Returns the
    /// report, the last seq, and what failed.
    mutating func check(promised: Int64, said: ChildReport? = nil) throws -> (report: IntegrityReport, last: Int64, failure: String?) {
        let eventLog = try EventLog(path: path)
        defer { try? eventLog.close() }
        let report = try eventLog.checkIntegrity()
        let last = report.seqs?.upperBound ?? 0
        if !report.isSound || (report.seqs != nil && report.seqs?.lowerBound != 1) {
            return (report, last, "the log is damaged")
        }
        if !report.recordedGaps.isEmpty { return (report, last, "a loss was recorded") }
        if last < promised { return (report, last, "seqs \(last + 1)…\(promised) were promised and are missing") }
        if let said, let script = said.script, said.promised > script.base {
            let actions = scripts[script.seed] ?? SessionSource.shopActions(seed: script.seed)
            scripts[script.seed] = actions
            var cursor = eventLog.events(EventFilter(seqs: (script.base + 1)...said.promised), pageSize: 1_000)
            var expected = script.base + 1
            while let event = try cursor.next() {
                let dispatched = actions[Int(event.seq - script.base - 1) % actions.count]
                let action = try eventLog.decodeAction(of: event, as: ShopAction.self)
                guard event.seq == expected, action == dispatched.action, event.source == dispatched.source else {
                    return (report, last, "seq \(event.seq) is not the action the child dispatched there")
                }
                expected += 1
            }
            if expected <= said.promised { return (report, last, "seqs \(expected)…\(said.promised) were promised and are missing") }
        }
        let replayer = Replayer(log: eventLog, reducer: Shop.reducer)
        for session in try eventLog.sessions() where session.id > sessionsBefore {
            let verified = try replayer.verify(session: session.id)
            verifiedEvents += verified.eventsFolded
            verifiedSnapshots += verified.snapshotsCompared
            if let divergence = verified.divergence {
                return (report, last, "session \(session.id) does not replay: it diverges at seq \(divergence.snapshotSeq)")
            }
        }
        sessionsBefore = try eventLog.sessions().last?.id ?? sessionsBefore
        return (report, last, nil)
    }
}

/// The rounds of a kill or power-cut run: a seeded generator for where each strikes, and the
/// durability each round records with.
struct StressSchedule {
    let durability: String
    private var state: UInt64

    static let durabilities = ["buffered", "synchronous", "mixed"]

    init(durability: String, seed: UInt64) {
        self.durability = durability
        state = seed
    }

    /// A number in `0..<bound` (a 64-bit linear congruential generator: reproducible from the seed).
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// The durability of `round`: `mixed` makes every third round synchronous.
    func mode(round: Int) -> String {
        durability == "mixed" ? (round % 3 == 0 ? "synchronous" : "buffered") : durability
    }
}
