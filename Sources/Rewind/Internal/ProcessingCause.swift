#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The cause of the action a store is processing on this thread (``ActionCause/current``), in a
/// POSIX thread-specific slot: a small block per thread, made the first time the thread
/// processes an action and freed when it ends, holding the parent's and the root's tickets (0,
/// which no ticket is, for none). A block rather than the tickets' bits in the slot's pointer,
/// which has 32 bits on some Apple watches.
///
/// By hand because the toolchain has no thread-local storage for Swift, and a task-local cannot
/// serve: binding one synchronously traps inside a `withTaskGroup` body. A read is a slot look-up
/// and two loads, with no allocation.
@usableFromInline
enum ProcessingCause {
    #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    private struct Block {
        var parent: UInt64
        var root: UInt64
    }

    /// `nil` when the process is out of keys: causes are then never found (get sees no block;
    /// set makes none). Not 0 as "none": 0 is a key like any other.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        #if canImport(Darwin)
        guard pthread_key_create(&key, { $0.deallocate() }) == 0 else { return nil }
        #else
        guard pthread_key_create(&key, { $0?.deallocate() }) == 0 else { return nil }
        #endif
        return key
    }()

    @usableFromInline
    static func get() -> ActionCause? {
        guard let key, let block = pthread_getspecific(key)?.assumingMemoryBound(to: Block.self), block.pointee.parent != 0 else { return nil }
        return ActionCause(parent: ActionTicket(rawValue: block.pointee.parent), root: ActionTicket(rawValue: block.pointee.root))
    }

    @usableFromInline
    static func set(_ cause: ActionCause?) {
        guard let key else { return }
        let block: UnsafeMutablePointer<Block>
        if let existing = pthread_getspecific(key) {
            block = existing.assumingMemoryBound(to: Block.self)
        } else {
            guard cause != nil else { return }
            block = UnsafeMutablePointer<Block>.allocate(capacity: 1)
            guard pthread_setspecific(key, block) == 0 else {
                block.deallocate()
                return
            }
        }
        block.pointee = Block(parent: cause?.parent.rawValue ?? 0, root: cause?.root.rawValue ?? 0)
    }
    #else
    // No thread-specific storage: causes come only from the task-local.
    @usableFromInline static func get() -> ActionCause? { nil }
    @usableFromInline static func set(_ cause: ActionCause?) {}
    #endif
}
