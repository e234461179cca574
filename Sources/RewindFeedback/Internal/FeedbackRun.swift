import Rewind
import Synchronization

/// One feedback of a started loop: the work it has running and how it reacts to each new state.
///
/// Created by ``FeedbackLoop/start()`` and dropped by ``FeedbackLoop/stop()``, which cancels
/// everything it runs. It holds the loop only through `emit`, which the loop binds weakly.
final class FeedbackRun<State: Sendable, Event: Sendable>: Sendable {
    private struct Work: Sendable {
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var nextToken: UInt64 = 0
        var states: AsyncStream<State>.Continuation?
        var isStopped = false
    }

    private let feedback: Feedback<State, Event>
    private let emit: Feedback<State, Event>.Emit
    private let report: @Sendable (any Error) -> Void
    /// Tells the loop when per-state work starts and ends, for ``FeedbackLoop/waitUntilSettled()``.
    private let workBegan: @Sendable () -> Void
    private let workEnded: @Sendable () -> Void
    private let work = Mutex(Work())

    init(
        feedback: Feedback<State, Event>,
        emit: @escaping Feedback<State, Event>.Emit,
        report: @escaping @Sendable (any Error) -> Void,
        workBegan: @escaping @Sendable () -> Void,
        workEnded: @escaping @Sendable () -> Void
    ) {
        self.feedback = feedback
        self.emit = emit
        self.report = report
        self.workBegan = workBegan
        self.workEnded = workEnded
    }

    /// Starts a stream feedback's lifelong work; other shapes wait for states.
    func start() {
        guard case let .stream(prepare) = feedback.body else { return }
        let (states, continuation) = AsyncStream<State>.makeStream()
        let operation = prepare(states, emit)
        let report = self.report
        let task = feedback.executor.task {
            do {
                try await operation()
            } catch is CancellationError {
            } catch {
                if !Task.isCancelled { report(error) }
            }
        }
        work.withLock { work in
            work.states = continuation
            work.tasks[work.nextToken] = task
            work.nextToken += 1
        }
    }

    /// Reacts to the loop's state after a turn.
    func deliver(_ state: State) {
        let accepted = feedback.accepts?(state) ?? true
        switch feedback.body {
        case let .reaction(reaction):
            if accepted, let event = reaction(state) { emit(event) }
        case .stream:
            if accepted { _ = work.withLock { $0.states?.yield(state) } }
        case let .effect(effect):
            run(effect, for: state, accepted: accepted)
        }
    }

    private func run(
        _ effect: @escaping @Sendable (State, Feedback<State, Event>.Emit) async throws -> Void,
        for state: State,
        accepted: Bool
    ) {
        let cancelsPrevious = feedback.strategy == .cancelOnNewState
        let emit = self.emit, report = self.report, workEnded = self.workEnded, executor = feedback.executor
        let superseded: [Task<Void, Never>] = work.withLock { work in
            guard !work.isStopped else { return [] }
            var superseded: [Task<Void, Never>] = []
            if cancelsPrevious {
                superseded = Array(work.tasks.values)
            }
            guard accepted else { return superseded }
            let token = work.nextToken
            work.nextToken += 1
            workBegan()
            // Created inside the lock so that its own `finished(token)` always finds the entry.
            work.tasks[token] = executor.task { [weak self] in
                do {
                    try await effect(state, emit)
                } catch is CancellationError {
                } catch {
                    if !Task.isCancelled { report(error) }
                }
                self?.finished(token)
                workEnded()
            }
            return superseded
        }
        for task in superseded { task.cancel() }
    }

    private func finished(_ token: UInt64) {
        _ = work.withLock { $0.tasks.removeValue(forKey: token) }
    }

    /// Cancels all work and ends the stream of states; later states are ignored.
    func stop() {
        let (tasks, states) = work.withLock { work in
            work.isStopped = true
            defer { work.states = nil }
            return (Array(work.tasks.values), work.states)
        }
        states?.finish()
        for task in tasks { task.cancel() }
    }
}
