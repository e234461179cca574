import CustomDump
import Foundation
public import Rewind
public import RewindLog
import Synchronization

/// A store for tests that asserts every state change and every action effects feed back,
/// exhaustively — recording into a temporary log as it goes, so a failing test leaves a log
/// that `rewind` can open (its path is in every failure message).
///
/// ```swift
/// @Test func checkout() async {
///     let store = TestStore(initialState: ShopState(), reducer: Shop.reducer, middleware: Shop.effects(environment: .simulated))
///     await store.send(.catalogue(.loaded(products: Product.samples, discounts: []))) {
///         $0.catalogue.products = Product.samples
///     }
///     await store.send(.checkout(.submit(orderID: id, at: date))) { state in … }
///     await store.receive(.checkout(.paymentSucceeded(orderID: id, receipt: "rcpt-…"))) { state in … }
///     await store.finish()
/// }
/// ```
///
/// `send` dispatches an action and compares the state after it with the state you describe
/// (the previous state changed by your closure); `receive` waits for the next action that a
/// middleware or an effect dispatched and does the same; `finish` waits for effects and fails
/// if any fed-back action was never received. Mismatches fail at the calling line with a diff,
/// `−` expected and `+` actual. The log is deleted when the store is released after a test
/// with no failures, and kept otherwise.
///
/// With ``exhaustivity`` `.off` (TCA's non-exhaustive mode), a test asserts only what it cares
/// about: an update closure checks only the fields it sets, `receive` skips the fed-back actions
/// before the one it names, and `send` and `finish` let unreceived actions go. A fed-back action
/// can be named by a value (when `Action` is `Equatable`), by a path to one of its cases
/// (`receive(\.checkout)`, for an action whose `checkout` property is the case's payload or
/// `nil`), or by a predicate.
public final class TestStore<State: Codable & Equatable & Sendable, Action: Codable & Sendable> {
    /// How much a test must assert (TCA's `exhaustivity`).
    public enum Exhaustivity: Sendable, Equatable {
        /// Every state change and every fed-back action (the default).
        case on
        /// Only what the test names: the fields an update closure sets, the actions it receives.
        case off
    }

    /// How much the test must assert; `.on` by default.
    public var exhaustivity = Exhaustivity.on
    /// How long `receive` waits for a fed-back action and `finish` for effects, unless given
    /// one of its own; one second by default. Wall-clock time, which includes an effect's wait
    /// for a thread: a large suite on a small machine wants more (see <doc:TestingWithRewind>).
    public var timeout = Duration.seconds(1)

    /// What the store has reduced and the tests have not yet asserted.
    private struct Processed: Sendable {
        var action: Action
        var source: ActionSource
        var state: State
        /// Its place among the actions reduced.
        var order: Int
    }

    /// The actions reduced and not yet asserted, shared with the probe middleware.
    private final class ProcessedQueue: Sendable {
        let entries = Mutex<[Processed]>([])
        let reduced = Atomic<Int>(0)
    }

    /// The state as the test has asserted it so far.
    public private(set) var state: State
    /// The recording's path.
    public let logPath: String

    private let store: Store<State, Action>
    /// `nil` when the log could not be created: the store then runs unrecorded.
    private let recorder: Recorder<State, Action>?
    private let processed = ProcessedQueue()
    private let folder: URL
    private var failures = 0

    /// Creates a test store recording into a new temporary log.
    ///
    /// - Parameters:
    ///   - initialState: The state before the first action.
    ///   - reducer: The app's reducer.
    ///   - middleware: The app's middleware (effects with test dependencies).
    ///   - app: The identity to record under.
    public init(
        initialState: State,
        reducer: Reducer<State, Action>,
        middleware: Middleware<State, Action> = .none,
        app: AppIdentity = AppIdentity(id: "test-store")
    ) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-test-store-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        logPath = folder.appendingPathComponent("test-store.rewind").path
        state = initialState
        var configuration = RecorderConfiguration<State, Action>()
        configuration.durability = .synchronous
        // A log that cannot be created leaves the store working and unrecorded; failures say so.
        let log = try? EventLog(path: logPath)
        let recorder = log.map { Recorder<State, Action>(log: $0, app: app, configuration: configuration) }
        self.recorder = recorder
        let processed = processed
        store = Store(
            initialState: initialState,
            reducer: reducer,
            middleware: .combine(
                recorder?.middleware ?? .none,
                middleware,
                Middleware(didReduce: { dispatched, state, _ in
                    let order = processed.reduced.add(1, ordering: .relaxed).newValue
                    processed.entries.withLock { $0.append(Processed(action: dispatched.action, source: dispatched.source, state: state, order: order)) }
                })
            )
        )
    }

    deinit {
        try? recorder?.close()
        if failures == 0 { try? FileManager.default.removeItem(at: folder) }
    }

    /// Dispatches `action` and checks the state after it.
    ///
    /// - Parameters:
    ///   - action: The action to send, as the test's own dispatch.
    ///   - update: Changes the previously asserted state into the expected one; omit it when
    ///     the action changes nothing.
    ///   - fileID: Where a failure is reported (the caller's by default).
    ///   - filePath: Where a failure is reported (the caller's by default).
    ///   - line: Where a failure is reported (the caller's by default).
    ///   - column: Where a failure is reported (the caller's by default).
    public func send(
        _ action: Action,
        fileID: StaticString = #fileID,
        file filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) throws -> Void)? = nil
    ) async {
        let unreceived = processed.entries.withLock { $0 }
        if exhaustivity == .off, let latest = unreceived.last {
            // Not asserted, and not needed to be: the next assertion starts from where they left the state.
            state = latest.state
            processed.entries.withLock { $0.removeAll() }
        } else if !unreceived.isEmpty {
            fail("""
                Must handle \(unreceived.count) received action\(unreceived.count == 1 ? "" : "s") before sending an action:
                \(unreceived.map { "  • " + Dumps.dump($0.action) }.joined(separator: "\n"))
                """, fileID, filePath, line, column)
            processed.entries.withLock { $0.removeAll() }
        }
        store.dispatch(action, from: ActionSource(file: String(describing: fileID), function: "send", line: line, column: column))
        guard let entry = await next(where: { $0.source.origin == .call }, timeout: .seconds(5)) else {
            return fail("The sent action was not reduced within 5 s", fileID, filePath, line, column)
        }
        expect(entry, update, fileID, filePath, line, column)
    }

    /// Waits for the next action a middleware or an effect dispatched that `matches`, and checks
    /// the state after it. Exhaustive, it must be the next one; with ``exhaustivity`` `.off`,
    /// those before it are let go.
    ///
    /// - Parameters:
    ///   - matches: Whether an action is the one expected.
    ///   - timeout: How long to wait for it (``timeout`` by default).
    ///   - update: Changes the previously asserted state into the expected one.
    ///   - fileID: Where a failure is reported (the caller's by default).
    ///   - filePath: Where a failure is reported (the caller's by default).
    ///   - line: Where a failure is reported (the caller's by default).
    ///   - column: Where a failure is reported (the caller's by default).
    public func receive(
        where matches: @escaping @Sendable (Action) -> Bool,
        timeout: Duration? = nil,
        fileID: StaticString = #fileID,
        file filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) throws -> Void)? = nil
    ) async {
        await receive(matches, described: "an action matching the predicate", timeout: timeout, fileID, filePath, line, column, update)
    }

    /// Waits for the next fed-back action of one case, named by the path to its payload: a
    /// property of `Action` that is the case's payload, or `nil` for any other case
    /// (`receive(\.checkout)`, `receive(\.checkout?.paymentSucceeded)`).
    ///
    /// - Parameters:
    ///   - casePath: The case's payload, `nil` for other actions.
    ///   - timeout: How long to wait for it (``timeout`` by default).
    ///   - update: Changes the previously asserted state into the expected one.
    ///   - fileID: Where a failure is reported (the caller's by default).
    ///   - filePath: Where a failure is reported (the caller's by default).
    ///   - line: Where a failure is reported (the caller's by default).
    ///   - column: Where a failure is reported (the caller's by default).
    public func receive<Payload>(
        _ casePath: any KeyPath<Action, Payload?> & Sendable,
        timeout: Duration? = nil,
        fileID: StaticString = #fileID,
        file filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) throws -> Void)? = nil
    ) async {
        await receive({ $0[keyPath: casePath] != nil }, described: "an action of the case at \(casePath)", timeout: timeout, fileID, filePath, line, column, update)
    }

    /// Receives the first fed-back action `matches` (exhaustive: the next one, which must match;
    /// `mismatch` says how it differs).
    fileprivate func receive(
        _ matches: @escaping @Sendable (Action) -> Bool, described expected: @autoclosure () -> String,
        mismatch: ((Action) -> String)? = nil, timeout: Duration?,
        _ fileID: StaticString, _ filePath: StaticString, _ line: UInt, _ column: UInt, _ update: ((inout State) throws -> Void)?
    ) async {
        let timeout = timeout ?? self.timeout
        let exhaustive = exhaustivity == .on
        guard let entry = await next(where: { exhaustive || matches($0.action) }, timeout: timeout) else {
            return fail("Expected to receive an action, but received none within \(timeout):\n  • \(expected())", fileID, filePath, line, column)
        }
        if !exhaustive {
            // The ones before it are let go: the assertion starts from the state just before it.
            let skipped = processed.entries.withLock { queue -> Processed? in
                defer { queue.removeAll { $0.order < entry.order } }
                return queue.last { $0.order < entry.order }
            }
            if let skipped { state = skipped.state }
        } else if !matches(entry.action) {
            fail(mismatch?(entry.action) ?? "Received an unexpected action instead of \(expected()):\n  • \(Dumps.dump(entry.action))", fileID, filePath, line, column)
        }
        expect(entry, update, fileID, filePath, line, column)
    }

    /// Waits until no effect runs, then fails if any fed-back action was never received.
    ///
    /// - Parameters:
    ///   - timeout: How long effects may take.
    ///   - fileID: Where a failure is reported (the caller's by default).
    ///   - filePath: Where a failure is reported (the caller's by default).
    ///   - line: Where a failure is reported (the caller's by default).
    ///   - column: Where a failure is reported (the caller's by default).
    public func finish(
        timeout: Duration? = nil,
        fileID: StaticString = #fileID,
        file filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        let timeout = timeout ?? self.timeout
        if !(await waitUntilIdle(timeout: timeout)) {
            fail("Effects were still running after \(timeout) (\(store.runningEffectCount) running)", fileID, filePath, line, column)
        }
        let unreceived = processed.entries.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
        if exhaustivity == .off {
            if let latest = unreceived.last { state = latest.state }
        } else if !unreceived.isEmpty {
            fail("""
                \(unreceived.count) received action\(unreceived.count == 1 ? " was" : "s were") not asserted:
                \(unreceived.map { "  • " + Dumps.dump($0.action) }.joined(separator: "\n"))
                """, fileID, filePath, line, column)
        }
    }

    private func expect(
        _ entry: Processed, _ update: ((inout State) throws -> Void)?,
        _ fileID: StaticString, _ filePath: StaticString, _ line: UInt, _ column: UInt
    ) {
        // Exhaustive: the asserted state changed by the closure must be the new state. Not: the
        // new state changed by the closure must still be the new state, so only what the
        // closure sets is checked.
        var expected = exhaustivity == .on ? state : entry.state
        do {
            try update?(&expected)
        } catch {
            fail("The assertion closure threw: \(error)", fileID, filePath, line, column)
        }
        if expected != entry.state {
            fail("""
                A state change does not match expectation: − expected, + actual
                \(CustomDump.diff(expected, entry.state) ?? "(equal when dumped)")
                """, fileID, filePath, line, column)
        }
        state = entry.state
    }

    /// The oldest unasserted entry matching `predicate`, waiting for it up to `timeout`.
    ///
    /// It looks a millisecond apart while it waits, as ``finish(timeout:fileID:file:line:column:)``
    /// does. Not `Task.yield()`: with nothing else ready it comes straight back, so a receive
    /// waiting on a slow effect kept its thread spinning — and the other core busy too (3.0 and
    /// 3.4 s of the process's CPU during a 2 s wait), in a suite whose effects and recorders
    /// need those cores to produce what is awaited.
    private func next(where predicate: @escaping @Sendable (Processed) -> Bool, timeout: Duration) async -> Processed? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if let found = take(where: predicate) { return found }
            // A cancelled test's sleep returns at once: it gives up rather than spin.
            guard clock.now < deadline, !Task.isCancelled else {
                // One more look after a turn of the pool: in a busy suite the effect that sends
                // the action may be queued for a thread behind other tests' work, and yielding
                // lets what was queued before this wait run first.
                await Task.yield()
                return take(where: predicate)
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Removes and returns the oldest unasserted entry matching `predicate`, if there is one.
    private func take(where predicate: (Processed) -> Bool) -> Processed? {
        processed.entries.withLock { queue -> Processed? in
            guard let index = queue.firstIndex(where: predicate) else { return nil }
            return queue.remove(at: index)
        }
    }

    /// Whether the store became idle within `timeout`. It polls rather than racing
    /// `Store.waitUntilIdle()` against a timer: a task group waits for all its children, and an
    /// effect that never ends would keep that wait, and so the test, from ever returning.
    private func waitUntilIdle(timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !store.isIdle {
            guard clock.now < deadline, !Task.isCancelled else {
                // One more look after a turn of the pool, as `next(where:timeout:)` does.
                await Task.yield()
                return store.isIdle
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    private func fail(_ message: String, _ fileID: StaticString, _ filePath: StaticString, _ line: UInt, _ column: UInt) {
        failures += 1
        let log = recorder == nil
            ? "No log was recorded: \(logPath) could not be created."
            : "Recorded log: \(logPath) (open it with `rewind log \(logPath)`)"
        reportIssue("\(message)\n\n\(log)", fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension TestStore where Action: Equatable {
    /// Waits for the next action a middleware or an effect dispatched, checks that it is
    /// `expected`, and checks the state after it. With ``exhaustivity`` `.off`, the fed-back
    /// actions before it are let go.
    ///
    /// - Parameters:
    ///   - expected: The action.
    ///   - timeout: How long to wait for it (``timeout`` by default).
    ///   - update: Changes the previously asserted state into the expected one.
    ///   - fileID: Where a failure is reported (the caller's by default).
    ///   - filePath: Where a failure is reported (the caller's by default).
    ///   - line: Where a failure is reported (the caller's by default).
    ///   - column: Where a failure is reported (the caller's by default).
    public func receive(
        _ expected: Action,
        timeout: Duration? = nil,
        fileID: StaticString = #fileID,
        file filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        assert update: ((inout State) throws -> Void)? = nil
    ) async {
        await receive(
            { $0 == expected }, described: Dumps.dump(expected),
            mismatch: { received in
                """
                Received an unexpected action: − expected, + received
                \(CustomDump.diff(expected, received) ?? "")
                """
            },
            timeout: timeout, fileID, filePath, line, column, update
        )
    }
}
