import Foundation
import Rewind
import RewindExamples
import RewindLog
@testable import RewindReplay
import Testing

/// `Replayer.profile` and `ProfileComparison`: the slow case is found by replay, and two builds
/// compare by case.
@Suite("Profiling by replay")
struct ReplayProfileTests {
    /// The shop's reducer with `checkout.submit` spinning for `delay` first.
    static func slowed(by delay: Duration) -> Reducer<ShopState, ShopAction> {
        Reducer { state, action in
            if case .checkout(.submit) = action {
                let clock = ContinuousClock(), until = clock.now + delay
                while clock.now < until {}
            }
            Shop.reducer(&state, action)
        }
    }

    @Test("a deliberately slow case is the costliest, its actions the slowest; counts and totals add up")
    func slowCase() async throws {
        let (_, log, _) = try await ReplayerTests.recordShop(seed: 7, actions: 120)
        // 10 ms a submit: longer than the system preempts a test under load, so no other action
        // can pass it but one preempted as long.
        let profile = try Replayer(log: log, reducer: Self.slowed(by: .milliseconds(10))).profile(slowest: 10)
        var cursor = log.events()
        let events = try cursor.collect()
        let submits = events.filter { $0.actionCase == "checkout.submit" }
        try #require(!submits.isEmpty)

        #expect(profile.sessions == [1] && profile.actions == events.count)
        let counted = Dictionary(events.map { ($0.actionCase, 1) }, uniquingKeysWith: +)
        #expect(Dictionary(uniqueKeysWithValues: profile.cases.map { ($0.actionCase, $0.count) }) == counted)
        #expect(profile.costliestCase?.actionCase == "checkout.submit")
        #expect(profile.reducerNanoseconds == profile.cases.reduce(0) { $0 + $1.totalNanoseconds })
        #expect(profile.cases.map(\.totalNanoseconds) == profile.cases.map(\.totalNanoseconds).sorted(by: >))
        for cost in profile.cases {
            #expect(cost.p50Nanoseconds <= cost.p99Nanoseconds && cost.p99Nanoseconds <= cost.maxNanoseconds, "\(cost)")
            #expect(cost.maxNanoseconds <= cost.totalNanoseconds)
        }
        let submit = try #require(profile.costliestCase)
        #expect(submit.p50Nanoseconds >= 9_000_000 && submit.totalNanoseconds >= UInt64(submits.count) * 9_000_000)
        // The submits are among the slowest, each with its seq and session.
        let listed = profile.slowest.filter { $0.actionCase == "checkout.submit" }
        #expect(Set(listed.map(\.seq)).isSubset(of: Set(submits.map(\.seq))) && listed.allSatisfy { $0.session == 1 && $0.nanoseconds >= 9_000_000 })
        #expect(listed.count == min(submits.count, 10), "\(profile.slowest)")
        #expect(profile.slowest.count == 10 && profile.slowest.map(\.nanoseconds) == profile.slowest.map(\.nanoseconds).sorted(by: >))
    }

    @Test("--from and --to time only their range; an empty range and an unknown session are answered")
    func range() async throws {
        let (_, log, _) = try await ReplayerTests.recordShop(seed: 7, actions: 60)
        let replayer = Replayer(log: log, reducer: Shop.reducer)
        let part = try replayer.profile(from: 20, through: 29, slowest: 100)
        #expect(part.actions == 10 && part.slowest.count == 10 && part.slowest.allSatisfy { (20...29).contains($0.seq) })
        let none = try replayer.profile(from: 10_000)
        #expect(none.actions == 0 && none.cases.isEmpty && none.slowest.isEmpty && none.sessions.isEmpty)
        #expect(throws: EventLogError.self) { try replayer.profile(sessions: [9]) }
        #expect(try replayer.profile(slowest: 0).slowest.isEmpty)
    }

    @Test("comparing builds flags the slowed case in every pairing, and the other way round calls it faster")
    func comparison() async throws {
        let (_, log, _) = try await ReplayerTests.recordShop(seed: 7, actions: 60)
        let before = Replayer(log: log, reducer: Shop.reducer), after = Replayer(log: log, reducer: Self.slowed(by: .milliseconds(10)))
        let slower = try ProfileComparison.alternating(runs: 3, baseline: { try before.profile() }, candidate: { try after.profile() })
        // The slowed case leads; the action after it can be flagged too (it runs on a cache the
        // spin left cold, measured here at 1.2–1.6×), so the others are not asserted.
        #expect(slower.runs == 3 && slower.slower.first?.actionCase == "checkout.submit", "\(slower.slower)")
        #expect(slower.cases.first?.actionCase == "checkout.submit" && slower.cases.first?.ratios.count == 3)
        // A 10 ms spin on a case of microseconds: past the 10 % flag in every pairing, which is
        // all the comparison promises. (How far past is the machine's: under the whole suite's
        // load a clean-clone CI run saw one pairing at 1.85× of a 2 ms spin, the baseline's own
        // submits preempted for milliseconds.)
        #expect(slower.cases.first?.ratios.allSatisfy { $0 >= 1.1 } == true, "\(slower.cases.first?.ratios ?? [])")
        let faster = try ProfileComparison.alternating(runs: 3, baseline: { try after.profile() }, candidate: { try before.profile() })
        #expect(faster.faster.contains { $0.actionCase == "checkout.submit" } && !faster.slower.contains { $0.actionCase == "checkout.submit" })

        // One pairing that does not show it is enough not to flag it.
        let profiles = try (0..<3).map { _ in try after.profile() }
        let mixed = try ProfileComparison(baseline: [profiles[0], try after.profile(), profiles[1]], candidate: [profiles[2], profiles[0], try before.profile()])
        #expect(!mixed.slower.contains { $0.actionCase == "checkout.submit" })
    }

    @Test("profiles of different actions, or of unequal runs, are not compared")
    func mismatch() async throws {
        let (_, log, _) = try await ReplayerTests.recordShop(seed: 7, actions: 60)
        let replayer = Replayer(log: log, reducer: Shop.reducer)
        let whole = try replayer.profile(), part = try replayer.profile(through: 30)
        #expect(throws: ProfileComparison.Mismatch.self) { try ProfileComparison(baseline: [whole], candidate: [part]) }
        #expect(throws: ProfileComparison.Mismatch.self) { try ProfileComparison(baseline: [whole, whole], candidate: [whole]) }
        #expect(throws: ProfileComparison.Mismatch.self) { try ProfileComparison(baseline: [], candidate: []) }
        #expect(throws: ProfileComparison.Mismatch.self) { try ProfileComparison(baseline: [whole], candidate: [whole], threshold: -1) }
        let same = try ProfileComparison(baseline: [whole], candidate: [whole])
        #expect(same.slower.isEmpty && same.faster.isEmpty && same.cases.allSatisfy { $0.ratios == [1] })
    }

    @Test("the histogram's percentiles are within 0.8 % of the exact ones, at every scale and at the edges")
    func histogram() {
        var generator = SystemRandomNumberGenerator()
        for scale: UInt64 in [50, 1_000, 1_000_000, 1 << 40, UInt64.max / 2] {
            var histogram = DurationHistogram()
            var values: [UInt64] = []
            for _ in 0..<2_000 {
                let value = UInt64.random(in: 0...scale, using: &generator)
                values.append(value)
                histogram.record(value)
            }
            values.sort()
            for fraction in [0.01, 0.5, 0.9, 0.99, 1] {
                let exact = values[max(0, Int((fraction * Double(values.count)).rounded(.up)) - 1)]
                let read = histogram.percentile(fraction)
                #expect(abs(Double(read) - Double(exact)) <= Double(exact) * 0.008 + 0.5, "scale \(scale), p\(fraction): \(read) vs \(exact)")
            }
            #expect(histogram.count == 2_000 && histogram.maximum == values.last)
        }
        var edges = DurationHistogram()
        for value: UInt64 in [0, 63, 64, 127, 128, .max] { edges.record(value) }
        #expect(edges.percentile(1) == .max && edges.percentile(0.01) == 0 && DurationHistogram.bucket(of: .max) == 3_775)
        #expect(DurationHistogram().percentile(0.5) == 0)
        var merged = DurationHistogram()
        merged.merge(edges)
        merged.merge(edges)
        #expect(merged.count == 12 && merged.maximum == .max && merged.percentile(0.5) == 64)
    }
}
