public import Dispatch

/// What the dispatch path's hand-off found under the buffer's lock (``Recorder``'s `handOff`).
///
/// Not nested in the generic recorder: a type nested in a generic one has generic metadata,
/// and its copies then go through value witnesses even in code specialised for the app's
/// types — on every dispatch.
@usableFromInline
enum HandOffOutcome {
    case accepted(wake: Bool, committed: DispatchSemaphore?)
    /// No room: wait for it, at most until the store counts as stuck.
    case full(DispatchSemaphore, wake: Bool, stuckAt: ContinuousClock.Instant)
    /// Let go on a stuck store, and counted (see ``StalledActions``).
    case letGo
    /// The recorder is closed.
    case refused
}
