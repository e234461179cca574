public import Rewind

/// Gathers the errors of many pieces of work into one stream instead of letting each end its
/// work — cause-logic-effect's error router.
///
/// ```swift
/// let errors = ErrorRouter()
/// let store = Store(initialState: App(), reducer: App.reducer, middleware: App.effects,
///                   onEffectFailure: errors.effectFailureHandler)
/// let user = await errors.catching { try await api.user() }   // nil if it failed
/// for await error in errors.errors { banner.show(error) }
/// ```
///
/// Cancellation is not an error: `CancellationError` is never routed.
public final class ErrorRouter: Sendable {
    private let routed = Broadcast<any Error>()

    /// Creates a router.
    public init() {}

    /// Every error routed from now on, in order.
    public var errors: AsyncStream<any Error> {
        routed.subscribe()
    }

    /// Routes an error to the ``errors`` stream.
    ///
    /// - Parameter error: The error; a `CancellationError` is dropped.
    public func route(_ error: any Error) {
        if error is CancellationError { return }
        routed.send(error)
    }

    /// A handler for `Store`'s and ``FeedbackLoop``'s `onEffectFailure`: each failure is
    /// routed as an `EffectFailure`, which names the effect's source.
    public var effectFailureHandler: @Sendable (EffectFailure) -> Void {
        { [routed] failure in routed.send(failure) }
    }

    /// Runs `work`; if it throws, routes the error and returns `nil`.
    ///
    /// - Parameters:
    ///   - work: The work whose errors to route.
    ///   - isolation: The actor the work is isolated to (the caller's by default).
    /// - Returns: What `work` returns, or `nil` if it threw.
    public func catching<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ work: () async throws -> T
    ) async -> T? {
        do {
            return try await work()
        } catch {
            route(error)
            return nil
        }
    }

    /// The elements of `sequence`, ending normally where it would throw; the error is routed.
    ///
    /// - Parameter sequence: A sequence that may throw.
    /// - Returns: A stream that does not throw.
    public func rerouting<Elements: AsyncSequence & Sendable>(
        _ sequence: Elements
    ) -> AsyncStream<Elements.Element> where Elements.Element: Sendable {
        let (stream, continuation) = AsyncStream<Elements.Element>.makeStream()
        let task = Task { [routed] in
            do {
                for try await element in sequence { continuation.yield(element) }
            } catch {
                if !(error is CancellationError) { routed.send(error) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
