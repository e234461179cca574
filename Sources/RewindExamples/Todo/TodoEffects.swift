public import Foundation
public import Rewind
import Synchronization

/// The outside world the todo app talks to, injected when its middleware is built.
public struct TodoEnvironment: Sendable {
    /// A sync the server refused.
    public struct SyncRefused: Error, Equatable, Sendable {
        /// Why.
        public var reason: String

        /// Creates a refusal.
        public init(reason: String) { self.reason = reason }
    }

    /// Uploads `changes` changes and returns when the server took them.
    public var upload: @Sendable (_ changes: Int) async throws -> Date
    /// The time the middleware stamps on the syncs it starts by itself.
    public var now: @Sendable () -> Date

    /// Creates an environment.
    public init(
        upload: @escaping @Sendable (_ changes: Int) async throws -> Date,
        now: @escaping @Sendable () -> Date
    ) {
        self.upload = upload
        self.now = now
    }

    /// A deterministic stand-in: a clock that ticks one second per reading from `start`, and a
    /// server that refuses every third upload ("server busy").
    ///
    /// - Parameter start: The clock's first reading.
    /// - Returns: A fresh environment (each has its own clock and counter).
    public static func simulated(start: Date = Date(timeIntervalSince1970: 1_767_258_000)) -> TodoEnvironment {
        let ticks = Mutex(0)
        let uploads = Mutex(0)
        let now: @Sendable () -> Date = {
            start + TimeInterval(ticks.withLock { tick in
                tick += 1
                return tick
            })
        }
        return TodoEnvironment(
            upload: { _ in
                let attempt = uploads.withLock { count in
                    count += 1
                    return count
                }
                guard attempt % 3 != 0 else { throw SyncRefused(reason: "server busy") }
                return now()
            },
            now: now
        )
    }
}

extension Todo {
    /// The todo app's effects: uploads changes when a sync starts, and starts a sync by itself
    /// once ``Todo/autoSyncThreshold`` changes are waiting.
    ///
    /// - Parameter environment: The services to call.
    /// - Returns: The middleware.
    public static func effects(environment: TodoEnvironment) -> Middleware<TodoState, TodoAction> {
        Middleware(didReduce: { dispatched, state, context in
            switch dispatched.action {
            case .sync(.start):
                let changes = state.sync.pendingChanges
                context.run(.run(id: "sync", cancelInFlight: true) { send in
                    do {
                        let date = try await environment.upload(changes)
                        send(.sync(.finished(at: date, uploaded: changes)))
                    } catch let refused as TodoEnvironment.SyncRefused {
                        send(.sync(.failed(reason: refused.reason)))
                    }
                })
            case let action where action.isChange:
                if state.sync.pendingChanges >= autoSyncThreshold && !state.sync.isSyncing {
                    context.dispatch(.sync(.start(at: environment.now())), info: "auto-sync")
                }
            default:
                break
            }
        })
    }
}
