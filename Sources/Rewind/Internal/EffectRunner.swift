import Synchronization

/// Runs a store's effects as tasks, keeps them cancellable by identifier, and reports failures.
final class EffectRunner<Action: Sendable>: Sendable {
    private struct Running: Sendable {
        var tasks: [UInt64: (id: EffectID?, task: Task<Void, Never>)] = [:]
        var nextToken: UInt64 = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var isShutDown = false
    }

    private let running = Mutex(Running())
    private let report: @Sendable (EffectFailure) -> Void

    init(report: @escaping @Sendable (EffectFailure) -> Void) {
        self.report = report
    }

    /// How many effect tasks have started and not yet ended.
    var count: Int {
        running.withLock { $0.tasks.count }
    }

    /// Starts `effect`, feeding its actions to `send`.
    func start(_ effect: Effect<Action>, send: Send<Action>) {
        switch effect.operation {
        case .none:
            break
        case let .send(action, source):
            send(action, from: source)
        case let .merge(effects):
            for effect in effects { start(effect, send: send) }
        case let .cancel(id):
            cancel(id: id)
        case let .run(run):
            start(run, send: send)
        }
    }

    private func start(_ run: Effect<Action>.Run, send: Send<Action>) {
        let report = self.report
        // The action being processed (or the effect's own cause): what the effect's sends are
        // caused by, carried into its task.
        let cause = ActionCause.current
        let superseded: [Task<Void, Never>] = running.withLock { running in
            guard !running.isShutDown else { return [] }
            if run.deduplicate, let id = run.id, running.tasks.values.contains(where: { $0.id == id }) { return [] }
            var superseded: [Task<Void, Never>] = []
            if run.cancelInFlight, let id = run.id {
                superseded = running.tasks.values.filter { $0.id == id }.map(\.task)
            }
            let token = running.nextToken
            running.nextToken += 1
            // Created inside the lock so that the task's own `finished(token)` always finds the
            // entry: the task cannot take this lock before we release it.
            let task = Task(priority: run.priority) { [weak self] in
                do {
                    if let cause {
                        try await ActionCause.$bound.withValue(cause) { try await run.operation(send) }
                    } else {
                        try await run.operation(send)
                    }
                } catch is CancellationError {
                    // Cancellation is how effects are stopped, not a failure.
                } catch {
                    if !Task.isCancelled {
                        report(EffectFailure(error: error, source: run.source, id: run.id))
                    }
                }
                self?.finished(token)
            }
            running.tasks[token] = (run.id, task)
            return superseded
        }
        // Cancelling runs cancellation handlers synchronously: never inside the lock.
        for task in superseded { task.cancel() }
    }

    private func finished(_ token: UInt64) {
        let waiters: [CheckedContinuation<Void, Never>] = running.withLock { running in
            running.tasks[token] = nil
            guard running.tasks.isEmpty else { return [] }
            defer { running.idleWaiters.removeAll() }
            return running.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Cancels every running effect with identifier `id`.
    func cancel(id: EffectID) {
        let tasks = running.withLock { running in
            running.tasks.values.filter { $0.id == id }.map(\.task)
        }
        for task in tasks { task.cancel() }
    }

    /// Cancels every running effect and refuses new ones (the store is going away).
    func shutDown() {
        let tasks = running.withLock { running in
            running.isShutDown = true
            return running.tasks.values.map(\.task)
        }
        for task in tasks { task.cancel() }
    }

    /// Returns once no effect is running.
    func waitUntilNoneRunning() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let isIdle = running.withLock { running in
                if running.tasks.isEmpty { return true }
                running.idleWaiters.append(waiter)
                return false
            }
            if isIdle { waiter.resume() }
        }
    }
}
