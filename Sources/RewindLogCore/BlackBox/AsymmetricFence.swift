internal import CRewindFence
import Synchronization

/// A fence between a hot thread and a cold one, for Dekker-style hand-shakes where each stores
/// one flag and then loads the other's ("I am inside an action" against "I am going to
/// sleep"): at least one of the two then sees the other's store.
///
/// The hot side (the store's dispatch path) calls ``light()`` between its store and its load;
/// the cold side (the hang watchdog) calls ``heavy()`` between its own. On Linux the light side
/// is a compiler barrier and the heavy one `membarrier(2)`, which puts a full barrier on every
/// running thread of the process: what was a sequentially consistent store on every action (an
/// `xchg`, about 10 ns here) becomes a plain one, and the watchdog pays a system call of a few
/// microseconds when it parks or finds a hang. Elsewhere (Apple platforms, a kernel or sandbox
/// without the call) both sides are full fences, as correct and as costly as before.
///
/// The stores and loads around it may be relaxed: the fences order them.
@usableFromInline
struct AsymmetricFence: Sendable {
    /// Whether ``light()`` is only a compiler barrier (`membarrier(2)` registered).
    @usableFromInline let isAsymmetric: Bool

    /// The process's fence (registered once).
    static let process = AsymmetricFence(isAsymmetric: rewind_fence_register() == 1)

    /// The hot side's fence. Not inlined: a call the compiler cannot see into keeps loads and
    /// stores on their side of it like the barrier inside, at about the cost of a call.
    @usableFromInline
    func light() {
        if isAsymmetric {
            rewind_fence_light()
        } else {
            atomicMemoryFence(ordering: .sequentiallyConsistent)
        }
    }

    /// The cold side's fence.
    func heavy() {
        if isAsymmetric {
            rewind_fence_heavy()
        } else {
            atomicMemoryFence(ordering: .sequentiallyConsistent)
        }
    }
}
