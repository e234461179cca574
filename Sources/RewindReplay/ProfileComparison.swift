/// Two builds' reducer times over the same recorded sessions, run by run: a performance
/// regression test made from real users' sessions.
///
/// A case is ``CaseChange/slower`` only when the candidate took at least `threshold` more of
/// its total time in *every* pairing of a baseline run with a candidate run, and
/// ``CaseChange/faster`` only when it took that much less in every one: one noisy run flags
/// nothing. Run the two builds alternately (``alternating(runs:threshold:baseline:candidate:)``
/// does), so that a machine getting busier or cooler weighs on both alike.
///
/// ```swift
/// let log = try EventLog(path: "shop.rewind", mode: .readOnly)
/// let comparison = try ProfileComparison.alternating(
///     baseline: { try Replayer(log: log, reducer: releasedReducer).profile() },
///     candidate: { try Replayer(log: log, reducer: Shop.reducer).profile() }
/// )
/// for change in comparison.slower { print(change.actionCase, change.ratios) }
/// ```
public struct ProfileComparison: Codable, Sendable, Equatable {
    /// One case in both builds.
    public struct CaseChange: Codable, Sendable, Equatable {
        /// The case path.
        public var actionCase: String
        /// How many of its actions each run reduced.
        public var count: Int
        /// The baseline's total for the case in each run, in nanoseconds.
        public var baselineNanoseconds: [UInt64]
        /// The candidate's, in the same order.
        public var candidateNanoseconds: [UInt64]
        /// Candidate ÷ baseline in each pairing (each total plus 1 ns, so that a case too
        /// fast to measure in both compares as equal).
        public var ratios: [Double]
        /// Whether every ratio is at least 1 + threshold.
        public var slower: Bool
        /// Whether every ratio is at most 1 ÷ (1 + threshold).
        public var faster: Bool

        /// The median ratio.
        public var medianRatio: Double {
            let sorted = ratios.sorted()
            guard !sorted.isEmpty else { return 1 }
            return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
    }

    /// Why two sets of profiles cannot be compared.
    public struct Mismatch: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// How many pairings were compared.
    public var runs: Int
    /// The smallest change flagged, as a fraction (0.10: 10 %).
    public var threshold: Double
    /// Every case, the slower ones first, then by median ratio, largest first.
    public var cases: [CaseChange]

    /// The cases the candidate made slower in every pairing.
    public var slower: [CaseChange] { cases.filter(\.slower) }
    /// The cases it made faster in every pairing, the most improved first.
    public var faster: [CaseChange] { cases.filter(\.faster).sorted { ($0.medianRatio, $0.actionCase) < ($1.medianRatio, $1.actionCase) } }

    /// Compares runs pairwise: `baseline[i]` with `candidate[i]`.
    ///
    /// - Throws: ``Mismatch`` when there are no runs, a different number of each, or runs
    ///   that did not reduce the same actions (another log, other sessions, another range).
    public init(baseline: [ReplayProfile], candidate: [ReplayProfile], threshold: Double = 0.10) throws(Mismatch) {
        guard !baseline.isEmpty, baseline.count == candidate.count else {
            throw Mismatch(description: "comparing needs as many baseline runs as candidate runs, at least one (given \(baseline.count) and \(candidate.count))")
        }
        guard threshold.isFinite, threshold >= 0 else { throw Mismatch(description: "the threshold is a fraction of at least 0 (given \(threshold))") }
        let counts = Self.counts(baseline[0])
        for (index, run) in (baseline + candidate).enumerated() where Self.counts(run) != counts {
            let which = index < baseline.count ? "baseline run \(index + 1)" : "candidate run \(index - baseline.count + 1)"
            throw Mismatch(description: "\(which) did not replay the same actions as baseline run 1: \(Self.difference(Self.counts(run), counts))")
        }
        let slowerAt = 1 + threshold, fasterAt = 1 / (1 + threshold)
        let changes = counts.map { actionCase, count in
            let before = baseline.map { Self.total(of: actionCase, in: $0) }, after = candidate.map { Self.total(of: actionCase, in: $0) }
            let ratios = zip(before, after).map { (Double($1) + 1) / (Double($0) + 1) }
            return CaseChange(
                actionCase: actionCase, count: count, baselineNanoseconds: before, candidateNanoseconds: after, ratios: ratios,
                slower: ratios.allSatisfy { $0 >= slowerAt }, faster: ratios.allSatisfy { $0 <= fasterAt }
            )
        }
        self.runs = baseline.count
        self.threshold = threshold
        self.cases = changes.sorted { ($0.slower ? 1 : 0, $0.medianRatio, $1.actionCase) > ($1.slower ? 1 : 0, $1.medianRatio, $0.actionCase) }
    }

    /// Profiles the two builds `runs` times each, alternating which goes first, and compares
    /// the runs pairwise.
    ///
    /// - Parameters:
    ///   - runs: How many pairings (5 by default).
    ///   - threshold: The smallest change flagged (10 % by default).
    ///   - baseline: Profiles the build compared against.
    ///   - candidate: Profiles the build under test.
    public static func alternating(
        runs: Int = 5, threshold: Double = 0.10, baseline: () throws -> ReplayProfile, candidate: () throws -> ReplayProfile
    ) throws -> ProfileComparison {
        var before: [ReplayProfile] = [], after: [ReplayProfile] = []
        for run in 0..<max(1, runs) {
            if run.isMultiple(of: 2) {
                before.append(try baseline())
                after.append(try candidate())
            } else {
                after.append(try candidate())
                before.append(try baseline())
            }
        }
        return try ProfileComparison(baseline: before, candidate: after, threshold: threshold)
    }

    private static func counts(_ profile: ReplayProfile) -> [String: Int] {
        Dictionary(profile.cases.map { ($0.actionCase, $0.count) }, uniquingKeysWith: +)
    }

    private static func total(of actionCase: String, in profile: ReplayProfile) -> UInt64 {
        profile.cases.reduce(0) { $1.actionCase == actionCase ? $0 &+ $1.totalNanoseconds : $0 }
    }

    /// The first few cases whose counts differ, as `case: 3 vs 4`.
    private static func difference(_ run: [String: Int], _ first: [String: Int]) -> String {
        let differing = Set(run.keys).union(first.keys).sorted().filter { run[$0] != first[$0] }
        let shown = differing.prefix(3).map { "\($0): \(run[$0] ?? 0) vs \(first[$0] ?? 0)" }.joined(separator: ", ")
        return differing.count > 3 ? shown + ", and \(differing.count - 3) more" : shown
    }
}
