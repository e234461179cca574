import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay
import RewindTestSupport
import Testing

@Suite("Replayer")
struct ReplayerTests {
    static let shop = AppIdentity(id: "com.example.shop")

    static func recordShop(seed: UInt64 = 7, actions: Int = 600, snapshotInterval: Int = 50)
        async throws -> (folder: TemporaryDirectory, log: EventLog, session: RecordedSession<ShopState, ShopAction>)
    {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.snapshotInterval = snapshotInterval
        configuration.snapshotBudget = .infinity  // exactly every interval: the tests count on where they are
        let session = try await recordSession(
            into: try EventLog(path: path), app: shop, initialState: ShopState(), reducer: Shop.reducer,
            effects: Shop.effects(environment: .simulated), user: Shopper(seed: seed), actions: actions,
            configuration: configuration
        )
        return (folder, try EventLog(path: path, mode: .readOnly), session)
    }

    @Test("replayed state equals the live store's at every snapshot, at sampled seqs and at the end (shop)")
    func shopReplayMatchesLive() async throws {
        let (_, log, live) = try await Self.recordShop()
        let replayer = Replayer(log: log, reducer: Shop.reducer)
        let session = try #require(try log.sessions().first)
        for entry in try log.snapshotIndex(session: session.id) where entry.seq > 0 {
            #expect(try replayer.state(at: entry.seq) == live.states[Int(entry.seq) - 1])
        }
        for seq: Int64 in [1, 2, 49, 51, 333, 599] {
            #expect(try replayer.state(at: seq) == live.states[Int(seq) - 1], "seq \(seq)")
        }
        #expect(try replayer.finalState(session: session.id) == live.store.state)
    }

    @Test("replayed state equals the live store's at every step (todo)")
    func todoReplayMatchesLive() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("todo.rewind")
        let live = try await recordSession(
            into: try EventLog(path: path), app: AppIdentity(id: "com.example.todo"), initialState: TodoState(),
            reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 12), actions: 400
        )
        let replayer = Replayer(log: try EventLog(path: path, mode: .readOnly), reducer: Todo.reducer)
        var steps = try replayer.steps(session: 1)
        var count = 0
        while let step = try steps.next() {
            #expect(step.state == live.states[count], "seq \(step.event.seq)")
            #expect(step.event.source == live.reduced[count].source)
            count += 1
        }
        #expect(count == 400)
        #expect(try replayer.finalState(session: 1) == live.store.state)
    }

    @Test("state(at:) starts from the nearest snapshot at or before the seq, never from the beginning")
    func startsFromNearestSnapshot() async throws {
        let (_, log, _) = try await Self.recordShop(actions: 300, snapshotInterval: 100)
        let replayer = Replayer(log: log, reducer: Shop.reducer)
        let (_, stats) = try replayer.stateAndStats(at: 257)
        #expect(stats.startedFromSnapshot == 200)
        #expect(stats.folded == 57)
        #expect(try replayer.stateAndStats(at: 200).stats.folded == 0)
    }

    @Test("bisect finds the shop's seeded bug: the first action that drives the total negative, with its source")
    func bisectFindsSeededBug() async throws {
        let (_, log, live) = try await Self.recordShop(seed: 7, actions: 600, snapshotInterval: 50)
        let expected = try #require(live.states.firstIndex { $0.cart.total < 0 }) + 1
        let replayer = Replayer(log: log, reducer: Shop.reducer)
        guard case let .found(found, _) = try replayer.bisect(where: { $0.cart.total < 0 }) else {
            Issue.record("bisect found nothing"); return
        }
        #expect(found.event.seq == Int64(expected))
        #expect(found.event.source == live.reduced[expected - 1].source)
        #expect(found.event.source.file == "RewindExamples/ShopScreens.swift")
        #expect(found.before.cart.total >= 0)
        #expect(found.after.cart.total < 0)
        #expect(found.diff?.contains("total") == true)
    }

    @Test("skipping ahead by snapshots finds a lasting condition folding only one window")
    func bisectSkippingAhead() async throws {
        let (_, log, live) = try await Self.recordShop(seed: 7, actions: 600, snapshotInterval: 50)
        // Paid orders never go away: once true, true at every later snapshot.
        let expected = try #require(live.states.firstIndex { $0.checkout.orders.count >= 3 }) + 1
        let replayer = Replayer(log: log, reducer: Shop.reducer)
        guard case let .found(fast, stats) = try replayer.bisect(skippingAhead: true, where: { $0.checkout.orders.count >= 3 }),
              case let .found(full, fullStats) = try replayer.bisect(where: { $0.checkout.orders.count >= 3 })
        else { Issue.record("bisect found nothing"); return }
        #expect(fast.event.seq == Int64(expected))
        #expect(full.event.seq == Int64(expected))
        #expect(stats.eventsFolded <= 50)
        #expect(fullStats.eventsFolded == expected)
    }

    @Test("bisect reports a condition that never holds, or holds from the start")
    func bisectEdges() async throws {
        let (_, log, _) = try await Self.recordShop(actions: 120)
        let replayer = Replayer(log: log, reducer: Shop.reducer)
        guard case .notFound = try replayer.bisect(where: { $0.checkout.orders.count > 1_000 }) else { Issue.record("expected notFound"); return }
        guard case let .holdsAtStart(session, seq, _) = try replayer.bisect(where: { $0.cart.lines.isEmpty }) else { Issue.record("expected holdsAtStart"); return }
        #expect(session == 1 && seq == 0)
    }

    @Test("verify passes with the recording's reducer and pins the first divergent seq of a changed one")
    func verifyDetectsChangedReducer() async throws {
        // A snapshot after every action: verify compares every step.
        let (_, log, live) = try await Self.recordShop(actions: 200, snapshotInterval: 1)
        let report = try Replayer(log: log, reducer: Shop.reducer).verify()
        #expect(report.divergence == nil)
        #expect(report.snapshotsCompared == 200)
        #expect(report.eventsFolded == 200)

        // "Fix" the bug in a new reducer: the discount never exceeds the subtotal.
        let fixed = Reducer<ShopState, ShopAction>.combine(Shop.reducer, Reducer { state, _ in
            if state.cart.total < 0 {
                state.cart.discountAmount = state.cart.subtotal
                state.cart.total = 0
            }
        })
        let divergence = try #require(try Replayer(log: log, reducer: fixed).verify().divergence)
        let firstNegative = Int64(try #require(live.states.firstIndex { $0.cart.total < 0 }) + 1)
        #expect(divergence.snapshotSeq == firstNegative)
        #expect(divergence.lastAgreeingSeq == firstNegative - 1)
        #expect(divergence.event.source == live.reduced[Int(firstNegative) - 1].source)
        #expect(divergence.recorded.cart.total < 0)
        #expect(divergence.replayed.cart.total == 0)
        #expect(divergence.diff.contains("total"))
    }

    @Test("verify with sparse snapshots reports the window a lasting divergence lies in")
    func verifyWindow() async throws {
        let (_, log, live) = try await Self.recordShop(actions: 400, snapshotInterval: 50)
        // A changed reducer whose effect lasts: every paid order's receipt is rewritten.
        let changed = Reducer<ShopState, ShopAction>.combine(Shop.reducer, Reducer { state, action in
            if case .checkout(.paymentSucceeded) = action, !state.checkout.orders.isEmpty {
                state.checkout.orders[state.checkout.orders.count - 1].receipt = "changed"
            }
        })
        let divergence = try #require(try Replayer(log: log, reducer: changed).verify().divergence)
        let firstPaid = Int64(try #require(live.reduced.firstIndex {
            if case .checkout(.paymentSucceeded) = $0.action { true } else { false }
        }) + 1)
        #expect(divergence.lastAgreeingSeq < firstPaid)
        #expect(divergence.snapshotSeq >= firstPaid)
        #expect(divergence.snapshotSeq - divergence.lastAgreeingSeq == 50)
        #expect(divergence.diff.contains("changed"))
    }

    @Test("what-if: skipping the action that applied the discount keeps the total from going negative")
    func whatIfSkipping() async throws {
        let (_, log, live) = try await Self.recordShop(seed: 7, actions: 60)
        let negative = try #require(live.states.firstIndex { $0.cart.total < 0 })
        let apply = try #require(live.reduced[..<negative].lastIndex {
            if case .cart(.applyDiscount(code: "SAVE10")) = $0.action { true } else { false }
        })
        let result = try Replayer(log: log, reducer: Shop.reducer).whatIf(skipping: [Int64(apply + 1)], through: Int64(negative + 1))
        #expect(result.actual.cart.total < 0)
        #expect(result.alternative.cart.total >= 0)
        #expect(result.skipped.map(\.actionCase) == ["cart.applyDiscount"])
        #expect(result.diff != nil)
    }

    @Test("diff(at:) shows what one action changed")
    func diffAtSeq() async throws {
        let (_, log, live) = try await Self.recordShop(actions: 30)
        let add = try #require(live.reduced.firstIndex { if case .cart(.add) = $0.action { true } else { false } })
        let diff = try Replayer(log: log, reducer: Shop.reducer).diff(at: Int64(add + 1))
        #expect(diff.after == live.states[add])
        #expect(diff.diff?.contains("+") == true)
        #expect(diff.diff?.contains("lines") == true)
    }

    @Test("an undecodable event stops replay with its seq and case, or is skipped and counted when asked")
    func undecodableEvents() throws {
        enum Old: Codable, Sendable { case add(Int), rename(String) }
        enum New: Codable, Sendable { case add(Int) }
        let folder = try TemporaryDirectory()
        let path = folder.file("app.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        try log.append([Old.add(1), .rename("x"), .add(2)].map { EventRecord($0, source: ActionSource()) }, to: session)
        let reducer = Reducer<Int, New> { state, action in if case let .add(n) = action { state += n } }

        let strict = Replayer(log: log, reducer: reducer)
        let error = #expect(throws: EventLogError.self) { try strict.state(at: 3) }
        #expect(error?.description.contains("seq 2 (rename) no longer decodes") == true)

        var options = ReplayOptions()
        options.skipUndecodable = true
        let lenient = Replayer(log: log, reducer: reducer, options: options)
        let (state, stats) = try lenient.stateAndStats(at: 3)
        #expect(state == 3)
        #expect(stats.skipped.map(\.seq) == [2])
        #expect(stats.skipped.map(\.actionCase) == ["rename"])
    }

    @Test("long replays report progress")
    func progress() async throws {
        let (_, log, _) = try await Self.recordShop(actions: 250, snapshotInterval: 0)
        let reports = Recorded<ReplayProgress>()
        var options = ReplayOptions()
        options.progressInterval = 100
        options.progress = { reports.append($0) }
        _ = try Replayer(log: log, reducer: Shop.reducer, options: options).state(at: 250)
        #expect(reports.all.map(\.folded) == [100, 200])
        #expect(reports.all.allSatisfy { $0.target == 250 })
    }

    @Test("a cancelled replay stops within a tenth of its progress interval with EventLogError.cancelled; verify too, between snapshots")
    func cancelled() async throws {
        let (_, log, _) = try await Self.recordShop(actions: 250, snapshotInterval: 0)
        let asked = Recorded<Int64>()
        var options = ReplayOptions()
        options.progressInterval = 100
        let folded = Recorded<Int64>()
        options.progress = { folded.append($0.seq) }
        // Asked every 10 seqs (before the report at 100), yes the 12th time: stopped at seq 120.
        options.isCancelled = { asked.append(Int64(folded.all.count)); return asked.all.count >= 12 }
        #expect(throws: EventLogError.cancelled(path: log.path)) {
            try Replayer(log: log, reducer: Shop.reducer, options: options).state(at: 250)
        }
        #expect(folded.all == [100])
        #expect(asked.all == Array(repeating: 0, count: 10) + [1, 1], "asked \(asked.all.count) times")
        // Verify folds 25 actions at a time between snapshots, and still stops.
        let (_, snapshotted, _) = try await Self.recordShop(actions: 250, snapshotInterval: 25)
        options.isCancelled = { true }
        #expect(throws: EventLogError.cancelled(path: snapshotted.path)) {
            try Replayer(log: snapshotted, reducer: Shop.reducer, options: options).verify()
        }
        options.isCancelled = nil
        let verified = Recorded<Int64>(), targets = Recorded<Int64>()
        options.progress = { verified.append($0.seq); targets.append($0.target) }
        #expect(try Replayer(log: snapshotted, reducer: Shop.reducer, options: options).verify().divergence == nil)
        // Verify's progress counts toward the walk's end, not the stretch it folds.
        #expect(verified.all == [100, 200] && targets.all == [250, 250], "\(verified.all) toward \(targets.all)")
    }

    @Test("an unknown seq names the range the log holds")
    func unknownSeq() async throws {
        let (_, log, _) = try await Self.recordShop(actions: 20)
        #expect(throws: EventLogError.seqNotFound(path: log.path, seq: 21, available: 1...20)) {
            try Replayer(log: log, reducer: Shop.reducer).state(at: 21)
        }
    }

    @Test("a session without events replays to its initial state through every entry point")
    func emptySession() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("app.rewind"))
        let reducer = Reducer<Int, Int> { state, action in state += action }
        let full = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        try log.append([1, 2, 3].map { EventRecord($0, source: ActionSource()) }, to: full)
        // Launched and closed without an action, after events of another session.
        let empty = try log.beginSession(app: AppIdentity(id: "app"), initialState: 40)
        let first = try log.beginSession(app: AppIdentity(id: "app"), initialState: 7)
        let replayer = Replayer(log: log, reducer: reducer)
        for (session, initial) in [(empty.id, 40), (first.id, 7)] {
            #expect(try replayer.finalState(session: session) == initial)
            #expect(try replayer.finalState(session: session, fromStart: true) == initial)
            var steps = try replayer.steps(session: session)
            #expect(try steps.next() == nil)
            #expect(steps.state == initial)
            var later = try replayer.steps(session: session, from: 1_000)
            #expect(try later.next() == nil)
            let report = try replayer.verify(session: session)
            #expect(report.divergence == nil && report.eventsFolded == 0)
            guard case .notFound = try replayer.bisect(session: session, where: { $0 < 0 }) else { Issue.record("expected notFound"); continue }
        }
        #expect(try log.restoredState(app: AppIdentity(id: "app"), reducer: reducer) == 7)
        #expect(try replayer.verify().sessions == 3)
    }

    @Test("what-if refuses an empty skip set and seqs outside the session, naming them")
    func whatIfRefusals() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("app.rewind"))
        let reducer = Reducer<Int, Int> { state, action in state += action }
        let one = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        try log.append([1, 2].map { EventRecord($0, source: ActionSource()) }, to: one)
        let two = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        try log.append([3, 4].map { EventRecord($0, source: ActionSource()) }, to: two)
        let replayer = Replayer(log: log, reducer: reducer)
        #expect(throws: EventLogError.nothingToSkip(path: log.path)) { try replayer.whatIf(skipping: []) }
        #expect(throws: EventLogError.seqOutsideSession(path: log.path, seq: 3, session: 1, sessionSeqs: 1...2)) {
            try replayer.whatIf(skipping: [1, 3])
        }
        #expect(throws: EventLogError.seqOutsideSession(path: log.path, seq: 4, session: 1, sessionSeqs: 1...2)) {
            try replayer.whatIf(skipping: [1], through: 4)
        }
        #expect(EventLogError.seqOutsideSession(path: "a.rewind", seq: 4, session: 1, sessionSeqs: 1...2).description
            == "a.rewind: seq 4 is not in session 1 (its events are seq 1…2); one replay stays within one session")
        let result = try replayer.whatIf(skipping: [1], through: 2)
        #expect(result.actual == 3 && result.alternative == 2)
    }

    @Test("a session retention emptied of events replays to the snapshot it kept: final state, steps (none) and the session's snapshot")
    func emptiedSession() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("emptied.rewind"))
        var kept = ShopState()
        kept.cart.message = "the state at seq 10"
        let idle = try log.beginSession(app: AppIdentity(id: "com.example.shop.widget"), initialState: ShopState())
        try log.append((0..<10).map { _ in EventRecord(ShopAction.cart(.clear), source: ActionSource()) }, to: idle)
        try log.appendSnapshot(kept, to: idle, after: 10)
        try log.endSession(idle.id, at: Date())
        let busy = try log.beginSession(app: Self.shop, initialState: ShopState())
        try log.append((0..<50).map { _ in EventRecord(ShopAction.cart(.clear), source: ActionSource()) }, to: busy)
        try log.trim(to: Retention(maxEvents: 5))
        #expect(try log.session(idle.id).seqRange == nil)

        let replayer = Replayer(log: log, reducer: Shop.reducer)
        #expect(try replayer.finalState(session: idle.id) == kept)
        var steps = try replayer.steps(session: idle.id)
        #expect(try steps.next() == nil)
    }
}
