import Synchronization

/// A ``Stage`` for tests: it keeps the history of what was presented and dismissed, and lets a
/// test answer each scene for the user.
///
/// ```swift
/// let stage = TestStage()
/// let flow = Task { try await forgotPassword(on: stage, store: store) }
/// try await stage.answer("555-0100", to: "EnterPhoneScene")   // waits until it is on stage
/// try await stage.answer("424242", to: "EnterCodeScene")
/// try await stage.answer("correct horse", to: "NewPasswordScene")
/// try await flow.value
/// #expect(stage.history == [
///     .presented("EnterPhoneScene", .push), .presented("EnterCodeScene", .push), .presented("NewPasswordScene", .push),
///     .dismissed("NewPasswordScene"), .dismissed("EnterCodeScene"), .dismissed("EnterPhoneScene"),
/// ])
/// ```
///
/// Every wait for a scene ends: when it is presented, when the waiting task is cancelled, or
/// after the stage's timeout with ``TestStageError/notPresented(scene:onStage:history:)``,
/// which says what was on stage instead.
public final class TestStage: Stage {
    /// One thing that happened on the stage.
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        /// A scene, by name, was presented with a placement.
        case presented(String, ScenePlacement)
        /// A scene, by name, was dismissed.
        case dismissed(String)

        /// `present EnterPhoneScene (push)` or `dismiss EnterPhoneScene`.
        public var description: String {
            switch self {
            case .presented(let scene, let placement): "present \(scene) (\(placement.rawValue))"
            case .dismissed(let scene): "dismiss \(scene)"
            }
        }
    }

    /// A scene on stage: its presentation and its output, with the value's type erased.
    private struct Live: Sendable {
        let presentation: Presentation
        let valueType: String
        /// Provides a value if it has the scene's type; `nil` if it has not.
        let provide: @Sendable (any Sendable) -> Bool?
        let finish: @Sendable () -> Void
    }

    private struct Waiter: Sendable {
        let id: UInt64
        let scene: String
        let continuation: CheckedContinuation<Live, any Error>
    }

    private struct Books: Sendable {
        var history: [Step] = []
        var onStage: [Live] = []
        var refusals: [String: any Error] = [:]
        var waiters: [Waiter] = []
        /// Waits begun but not yet registered as waiters, and those stopped (timed out,
        /// cancelled) in that window: registration then fails at once instead of waiting.
        var starting: Set<UInt64> = []
        var stoppedEarly: [UInt64: any Error] = [:]
        var nextWaiterID: UInt64 = 0

        func newest(named scene: String) -> Live? {
            onStage.last { $0.presentation.scene == scene }
        }
    }

    private let books = Mutex(Books())
    private let timeout: Duration

    /// Creates an empty stage.
    ///
    /// - Parameter timeout: How long ``answer(_:to:)``, ``finish(_:)`` and
    ///   ``presentation(of:)`` wait for a scene to be presented before failing; 10 seconds by
    ///   default.
    public init(timeout: Duration = .seconds(10)) {
        self.timeout = timeout
    }

    /// Everything presented and dismissed, in order.
    public var history: [Step] {
        books.withLock { $0.history }
    }

    /// The names of the scenes on stage now, oldest first.
    public var onStage: [String] {
        books.withLock { $0.onStage.map(\.presentation.scene) }
    }

    /// Makes the next presentation of a scene fail with `error`, as a stage that cannot show it
    /// would.
    ///
    /// - Parameters:
    ///   - scene: The scene's name.
    ///   - error: What ``present(_:as:output:)`` throws for it.
    public func refuse(_ scene: String, with error: any Error) {
        books.withLock { $0.refusals[scene] = error }
    }

    /// Answers a scene for the user: waits until the scene is on stage (the newest presentation
    /// of that name), then provides `value` through it.
    ///
    /// - Parameters:
    ///   - value: What the user provides.
    ///   - scene: The scene's name.
    /// - Throws: ``TestStageError/wrongType(scene:expected:given:)`` if the scene provides
    ///   another type, ``TestStageError/notPresented(scene:onStage:history:)`` after the
    ///   timeout, ``TestStageError/alreadyEnded(scene:)`` if the flow no longer takes values from
    ///   it, or `CancellationError`.
    public func answer<Value: Sendable>(_ value: Value, to scene: String) async throws {
        let live = try await waitFor(scene)
        switch live.provide(value) {
        case nil: throw TestStageError.wrongType(scene: scene, expected: live.valueType, given: "\(Value.self)")
        case false?: throw TestStageError.alreadyEnded(scene: scene)
        case true?: return
        }
    }

    /// Closes a scene for the user without a value (``SceneOutput/finish()``): waits until the
    /// scene is on stage, then finishes its output.
    ///
    /// - Parameter scene: The scene's name.
    /// - Throws: ``TestStageError/notPresented(scene:onStage:history:)`` after the timeout, or
    ///   `CancellationError`.
    public func finish(_ scene: String) async throws {
        try await waitFor(scene).finish()
    }

    /// Waits until a scene is on stage.
    ///
    /// - Parameter scene: The scene's name.
    /// - Returns: Its newest presentation.
    /// - Throws: ``TestStageError/notPresented(scene:onStage:history:)`` after the timeout, or
    ///   `CancellationError`.
    @discardableResult
    public func presentation(of scene: String) async throws -> Presentation {
        try await waitFor(scene).presentation
    }

    public func present<Value: Sendable>(
        _ scene: Scene<Value>, as presentation: Presentation, output: SceneOutput<Value>
    ) async throws {
        let live = Live(
            presentation: presentation,
            valueType: "\(Value.self)",
            provide: { value in (value as? Value).map { output.provide($0) } },
            finish: { output.finish() }
        )
        let ready = try books.withLock { books -> [Waiter] in
            if let refusal = books.refusals.removeValue(forKey: scene.name) { throw refusal }
            books.history.append(.presented(scene.name, presentation.placement))
            books.onStage.append(live)
            let ready = books.waiters.filter { $0.scene == scene.name }
            books.waiters.removeAll { $0.scene == scene.name }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: live) }
    }

    public func dismiss(_ presentation: Presentation) async {
        let dismissed = books.withLock { books -> Live? in
            guard let index = books.onStage.firstIndex(where: { $0.presentation == presentation }) else { return nil }
            books.history.append(.dismissed(presentation.scene))
            return books.onStage.remove(at: index)
        }
        // A dismissed screen takes no more input.
        dismissed?.finish()
    }

    private func waitFor(_ scene: String) async throws -> Live {
        let id = books.withLock { books in
            defer { books.nextWaiterID += 1 }
            books.starting.insert(books.nextWaiterID)
            return books.nextWaiterID
        }
        // The timer is a task on the same pool as the flow it waits for, on purpose: a suite
        // running hundreds of tests at once queues every task behind the others, and a timer
        // outside the pool (a Dispatch one was tried) then ends waits for flows that never had
        // a thread to run on, failing tests that would pass. A lost wake-up still ends here.
        let timer = Task { [timeout] in
            try await Task.sleep(for: timeout)
            self.stopWaiting(id) { books in
                TestStageError.notPresented(
                    scene: scene, onStage: books.onStage.map(\.presentation.scene), history: books.history
                )
            }
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Live, any Error>) in
                let outcome: Result<Live, any Error>? = books.withLock { books in
                    books.starting.remove(id)
                    let stopped = books.stoppedEarly.removeValue(forKey: id)
                    if let live = books.newest(named: scene) { return .success(live) }
                    if let stopped { return .failure(stopped) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    books.waiters.append(Waiter(id: id, scene: scene, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            stopWaiting(id) { _ in CancellationError() }
        }
    }

    /// Ends one wait with an error, if it is still waiting (or about to).
    private func stopWaiting(_ id: UInt64, with error: (Books) -> any Error) {
        let stopped = books.withLock { books -> (Waiter, any Error)? in
            if books.starting.contains(id) {
                books.stoppedEarly[id] = error(books)
                return nil
            }
            guard let index = books.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return (books.waiters.remove(at: index), error(books))
        }
        if let (waiter, error) = stopped { waiter.continuation.resume(throwing: error) }
    }
}
