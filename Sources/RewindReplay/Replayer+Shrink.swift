import Foundation
import Rewind
public import RewindLog

extension Replayer {
    /// Shrinks the actions that lead to `condition` to a minimal sequence that still leads to
    /// it, by delta debugging (Zeller's ddmin) over the actions from the session's start to the
    /// first action after which the condition holds.
    ///
    /// Every candidate is replayed from the session's initial state; it "fails" when the
    /// condition holds after any of its actions. The result is 1-minimal: removing any one of
    /// the kept actions makes the condition never hold.
    ///
    /// With `keepingCauses` (the default), a candidate that keeps an action without the action
    /// that caused it — a payment result without the tap on *pay* — is not tried: it is a history
    /// that could not have happened. An action whose cause is not known (a log from before causes
    /// were recorded) is free to stay or go.
    ///
    /// - Parameters:
    ///   - session: Only this session (default: the first where the condition holds).
    ///   - keepingCauses: Whether every kept action keeps its cause.
    ///   - condition: The condition, e.g. an invariant's negation.
    /// - Returns: The shrunk sequence, or `nil` when the condition never holds.
    public func shrink(
        session: Int64? = nil,
        keepingCauses: Bool = true,
        where condition: (State) -> Bool
    ) throws(EventLogError) -> ShrinkResult<State, Action>? {
        guard case let .found(first, _) = try bisect(session: session, where: condition) else { return nil }
        let reader = try reader(for: log.session(first.event.session))
        let failing = reader.session
        let initial = try reader.initialState(State.self).state
        var steps: [(seq: Int64, action: Action)] = []
        var stats = ReplayStats()
        try forEachAction(reader, from: failing.baseSeq + 1, through: first.event.seq, stats: &stats) { seq, action in
            steps.append((seq, action))
            return .continue
        }
        // Each step's cause among the steps, by index.
        var causes = [Int?](repeating: nil, count: steps.count)
        if keepingCauses, let last = steps.last?.seq {
            let place = Dictionary(steps.enumerated().map { ($1.seq, $0) }, uniquingKeysWith: { first, _ in first })
            var cursor = log.events(EventFilter(seqs: (failing.baseSeq + 1)...last, session: failing.id))
            while let event = try cursor.next() {
                if let index = place[event.seq], let cause = event.cause { causes[index] = place[cause] }
            }
        }
        let constrained = causes.contains { $0 != nil }
        var replays = 0
        var kept = [Bool](repeating: false, count: steps.count)
        func fails(_ candidate: [Int]) -> Bool {
            if constrained {
                for index in candidate { kept[index] = true }
                defer { for index in candidate { kept[index] = false } }
                // A history that could not have happened is not tried.
                if candidate.contains(where: { index in causes[index].map { !kept[$0] } ?? false }) { return false }
            }
            replays += 1
            var state = initial
            for index in candidate {
                reducer(&state, steps[index].action)
                if condition(state) { return true }
            }
            return false
        }
        let minimal = Self.minimize(Array(steps.indices), fails: fails)
        var keptSteps: [(event: LoggedEvent, action: Action)] = []
        for index in minimal { keptSteps.append((try log.event(at: steps[index].seq), steps[index].action)) }
        return ShrinkResult(
            session: failing, initialState: initial, steps: keptSteps,
            originalCount: steps.count, replays: replays
        )
    }

    /// ddmin: the smallest subsequence of `items` (order kept) for which `fails` holds, given
    /// that it holds for all of `items`.
    static func minimize(_ items: [Int], fails: ([Int]) -> Bool) -> [Int] {
        var current = items
        var granularity = 2
        while current.count >= 2 {
            let chunkSize = Int((Double(current.count) / Double(granularity)).rounded(.up))
            let chunks = stride(from: 0, to: current.count, by: chunkSize).map { Array(current[$0..<min($0 + chunkSize, current.count)]) }
            var reduced = false
            for chunk in chunks where fails(chunk) {
                current = chunk
                granularity = 2
                reduced = true
                break
            }
            if !reduced {
                for index in chunks.indices {
                    let complement = chunks.enumerated().filter { $0.offset != index }.flatMap(\.element)
                    if fails(complement) {
                        current = complement
                        granularity = max(granularity - 1, 2)
                        reduced = true
                        break
                    }
                }
            }
            if !reduced {
                guard granularity < current.count else { break }
                granularity = min(current.count, granularity * 2)
            }
        }
        return current
    }
}

extension ShrinkResult where State: Encodable, Action: Encodable {
    /// Writes the shrunk sequence as a new log at `path`: one session, recorded by the same
    /// app with the same codec, whose initial state is the original session's and whose events
    /// are the kept actions with their original sources and times — a fixture any replay
    /// (the `rewind` tool, `RewindTesting`) can open.
    ///
    /// A fixture of an encrypted session is encrypted with the same key, so it is no easier to
    /// read than the log it came from.
    ///
    /// - Parameters:
    ///   - path: Where to create the fixture; it must not exist.
    ///   - codecs: Where to find the session's codec by name (the standard JSON and binary ones
    ///     unless the app registered its own).
    ///   - keys: Where to find the session's key by id, when it is encrypted.
    /// - Returns: The new log, open for reading and writing.
    @discardableResult
    public func write(to path: String, codecs: PayloadCodecs = .standard, keys: LogKeys = LogKeys()) throws(EventLogError) -> EventLog {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw .readOnly(path: path, detail: "the file exists already; a fixture is written to a new file")
        }
        guard let codec = codecs[session.codec] else {
            throw .unknownCodec(path: path, session: session.id, codec: session.codec)
        }
        var fixtureKeys = LogKeys()
        if let keyID = session.encryption?.keyID {
            guard let key = keys[keyID] else { throw .keyMissing(path: path, session: session.id, keyID: keyID) }
            fixtureKeys.current = key
        }
        let fixture = try EventLog(path: path, codecs: codecs, keys: fixtureKeys)
        let info = #"{"shrunkFrom":{"session":\#(session.id),"actions":\#(originalCount)}}"#
        let started = Date(timeIntervalSince1970: steps.first?.event.time ?? session.startedAt)
        let target = try fixture.beginSession(app: session.app, codec: codec, initialState: initialState, info: info, at: started)
        try fixture.append(
            steps.map { EventRecord($0.action, source: $0.event.source, time: Date(timeIntervalSince1970: $0.event.time)) },
            to: target
        )
        return fixture
    }
}
