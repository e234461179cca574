import Rewind
import RewindFeedback
import RewindLog
import RewindReplay
import RewindTestSupport
import Testing

// The "Coming from Spin" article's examples (RewindFeedback.docc/ComingFromSpin.md), kept compiling
// and true. Names match the article's.

/// Two channels that move toward each other one step per turn and meet at their average.
struct Levels: Codable, Equatable, Sendable {
    var left: Int
    var right: Int

    enum Event: Codable, Equatable, Sendable {
        case raiseLeft, lowerLeft, raiseRight, lowerRight
    }

    static let reducer = Reducer<Levels, Event> { levels, event in
        switch event {
        case .raiseLeft: levels.left += 1
        case .lowerLeft: levels.left -= 1
        case .raiseRight: levels.right += 1
        case .lowerRight: levels.right -= 1
        }
    }

    // Each channel moves toward the other while they are more than one step apart.
    static let leftFeedback = Feedback<Levels, Event>("left") { levels in
        if levels.right - levels.left > 1 { return .raiseLeft }
        if levels.left - levels.right > 1 { return .lowerLeft }
        return nil
    }

    static let rightFeedback = Feedback<Levels, Event>("right") { levels in
        if levels.right - levels.left > 1 { return .lowerRight }
        if levels.left - levels.right > 1 { return .raiseRight }
        return nil
    }
}

/// Spin's counter: counts up on its own while counting is on, up to a limit.
struct Counter: Codable, Equatable, Sendable {
    var value = 0
    var isCounting = false

    enum Event: Codable, Equatable, Sendable {
        case start, stop, increase
    }

    static let reducer = Reducer<Counter, Event> { counter, event in
        switch event {
        case .start: counter.isCounting = true
        case .stop: counter.isCounting = false
        case .increase: counter.value += 1
        }
    }

    static func loop(limit: Int) -> FeedbackLoop<Counter, Event> {
        FeedbackLoop(initialState: Counter(), reducer: reducer) {
            Feedback("count") { _ in .increase }
                .filtered { $0.isCounting && $0.value < limit }
            Feedback("stop at the limit") { _ in .stop }
                .filtered { $0.isCounting && $0.value >= limit }
        }
    }
}

/// Collects every state a loop goes through, the initial one included.
func statesOf<State: Sendable, Event: Sendable>(_ loop: FeedbackLoop<State, Event>) -> (Recorded<State>, StoreObservation) {
    let states = Recorded<State>()
    states.append(loop.state)
    return (states, loop.observe { states.append($0) })
}

/// Starts `loop`, waits until it settles, stops it, and returns every state it went through.
func statesUntilSettled<State: Sendable, Event: Sendable>(_ loop: FeedbackLoop<State, Event>) async -> [State] {
    let (states, observation) = statesOf(loop)
    let running = loop.start()
    await loop.waitUntilSettled()
    running.stop()
    observation.cancel()
    return states.all
}

@Suite("Coming from Spin")
struct ComingFromSpinTests {
    static let expectedLevels: [Levels] = [
        .init(left: 0, right: 10), .init(left: 1, right: 10), .init(left: 1, right: 9),
        .init(left: 2, right: 9), .init(left: 2, right: 8), .init(left: 3, right: 8),
        .init(left: 3, right: 7), .init(left: 4, right: 7), .init(left: 4, right: 6),
        .init(left: 5, right: 6), .init(left: 5, right: 5),
    ]

    @Test("the levels loop, declared with the result builder, converges to the average")
    func levelsDeclarative() async {
        let loop = FeedbackLoop(initialState: Levels(left: 0, right: 10), reducer: Levels.reducer) {
            Levels.leftFeedback
            Levels.rightFeedback
        }
        #expect(await statesUntilSettled(loop) == Self.expectedLevels)
    }

    @Test("the levels loop, built with the chain, goes through the same states")
    func levelsBuilder() async {
        let loop = FeedbackLoopBuilder
            .initialState(Levels(left: 0, right: 10))
            .feedback(Levels.leftFeedback)
            .feedback(Levels.rightFeedback)
            .reducer(Levels.reducer)
        #expect(await statesUntilSettled(loop) == Self.expectedLevels)
    }

    @Test("an odd gap settles one step apart instead of oscillating")
    func levelsOddGap() async {
        let loop = FeedbackLoop(initialState: Levels(left: 0, right: 9), reducer: Levels.reducer) {
            Levels.leftFeedback
            Levels.rightFeedback
        }
        let running = loop.start()
        await loop.waitUntilSettled()
        #expect(loop.state == Levels(left: 4, right: 5))
        running.stop()
    }

    @Test("the counter counts while counting is on and stops itself at the limit")
    func counter() async {
        let loop = Counter.loop(limit: 3)
        let (states, observation) = statesOf(loop)
        let running = loop.start()
        await loop.waitUntilSettled()
        #expect(states.all == [Counter()], "nothing happens before start is dispatched")

        loop.dispatch(.start)
        await loop.waitUntilSettled()
        #expect(states.all.map(\.value) == [0, 0, 1, 2, 3, 3])
        #expect(states.all.map(\.isCounting) == [false, true, true, true, true, false])
        running.stop()
        observation.cancel()
    }

    @Test("a recorded loop replays to its final state, each event naming its feedback")
    func recordingAndReplay() async throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("levels.rewind"))
        let recorder = Recorder<Levels, Levels.Event>(log: log, app: AppIdentity(id: "levels"))
        let loop = FeedbackLoop(
            initialState: Levels(left: 0, right: 10),
            reducer: Levels.reducer,
            middleware: recorder.middleware
        ) {
            Levels.leftFeedback
            Levels.rightFeedback
        }
        let running = loop.start()
        await loop.waitUntilSettled()
        running.stop()
        try await recorder.close()

        let reopened = try EventLog(path: folder.file("levels.rewind"), mode: .readOnly)
        let session = try #require(try reopened.sessions().first)
        let replayed = try Replayer(log: reopened, reducer: Levels.reducer).finalState(session: session.id, fromStart: true)
        #expect(replayed == loop.state)
        #expect(replayed == Levels(left: 5, right: 5))

        var cursor = reopened.events()
        var names: [String?] = []
        while let event = try cursor.next() {
            #expect(event.source.origin == .feedback)
            #expect(event.source.file == "RewindFeedbackTests/ComingFromSpinTests.swift")
            names.append(event.source.info)
        }
        #expect(names == Array(repeating: ["left", "right"], count: 5).flatMap { $0 })
    }
}

// MARK: - A gear between an authorization loop and a feature loop

/// What the two loops say to each other.
enum AppSignal: Equatable, Sendable {
    case tokenExpired
    case tokenRenewed(Int)
}

/// Holds the session token and renews it when a feature reports it expired.
struct Authorization: Equatable, Sendable {
    enum Phase: Equatable, Sendable { case valid, renewing, renewed }
    var token = 1
    var phase = Phase.valid

    enum Event: Equatable, Sendable { case expired, renewed(Int), announced }

    static let reducer = Reducer<Authorization, Event> { auth, event in
        switch event {
        case .expired: auth.phase = .renewing
        case let .renewed(token): auth.token = token; auth.phase = .renewed
        case .announced: auth.phase = .valid
        }
    }

    static func loop(gear: Gear<AppSignal>) -> FeedbackLoop<Authorization, Event> {
        FeedbackLoop(initialState: Authorization(), reducer: reducer) {
            Feedback.catching(from: gear, "expiry") { $0 == .tokenExpired ? .expired : nil }
            Feedback("renew") { (auth: Authorization) async in .renewed(auth.token + 1) }
                .filtered { $0.phase == .renewing }
            Feedback.propagating(to: gear, "announce") { $0.phase == .renewed ? .tokenRenewed($0.token) : nil }
            Feedback("announced") { _ in .announced }
                .filtered { $0.phase == .renewed }
        }
    }
}

/// Loads data with the token it has; the server refuses token 1.
struct Feature: Equatable, Sendable {
    enum Phase: Equatable, Sendable { case idle, loading, unauthorized, loaded(String) }
    var token = 1
    var phase = Phase.idle

    enum Event: Equatable, Sendable { case load, refused, loaded(String), tokenRenewed(Int) }

    static let reducer = Reducer<Feature, Event> { feature, event in
        switch event {
        case .load: feature.phase = .loading
        case .refused: feature.phase = .unauthorized
        case let .loaded(data): feature.phase = .loaded(data)
        case let .tokenRenewed(token): feature.token = token; feature.phase = .loading
        }
    }

    static func loop(gear: Gear<AppSignal>) -> FeedbackLoop<Feature, Event> {
        FeedbackLoop(initialState: Feature(), reducer: reducer) {
            Feedback("fetch") { (feature: Feature) async in
                feature.token < 2 ? .refused : .loaded("data for token \(feature.token)")
            }
            .filtered { $0.phase == .loading }
            Feedback.propagating(to: gear, "report expiry") { $0.phase == .unauthorized ? .tokenExpired : nil }
            Feedback.catching(from: gear, "renewal") { signal in
                if case let .tokenRenewed(token) = signal { return .tokenRenewed(token) }
                return nil
            }
        }
    }
}

extension ComingFromSpinTests {
    @Test("a gear lets the feature loop get its token renewed by the authorization loop")
    func gear() async {
        let gear = Gear<AppSignal>()
        let authorization = Authorization.loop(gear: gear)
        let feature = Feature.loop(gear: gear)
        let (authStates, authObservation) = statesOf(authorization)
        let (featureStates, featureObservation) = statesOf(feature)
        let runningAuthorization = authorization.start()
        let runningFeature = feature.start()

        feature.dispatch(.load)
        var states = feature.states.makeAsyncIterator()
        while let state = await states.next(), state.phase != .loaded("data for token 2") {}
        await authorization.waitUntilSettled()
        await feature.waitUntilSettled()

        #expect(featureStates.all == [
            Feature(token: 1, phase: .idle),
            Feature(token: 1, phase: .loading),
            Feature(token: 1, phase: .unauthorized),
            Feature(token: 2, phase: .loading),
            Feature(token: 2, phase: .loaded("data for token 2")),
        ])
        #expect(authStates.all == [
            Authorization(token: 1, phase: .valid),
            Authorization(token: 1, phase: .renewing),
            Authorization(token: 2, phase: .renewed),
            Authorization(token: 2, phase: .valid),
        ])
        runningAuthorization.stop()
        runningFeature.stop()
        authObservation.cancel()
        featureObservation.cancel()
    }
}
