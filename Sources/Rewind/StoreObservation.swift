import Synchronization

/// A running observation of a store's state; it ends when cancelled or released.
///
/// ```swift
/// let observation = store.observe { state in print(state.cart.total) }
/// …
/// observation.cancel()
/// ```
public final class StoreObservation: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    /// Wraps the function that ends the observation.
    ///
    /// - Parameter cancel: Ends the observation; called at most once.
    public init(cancel: @escaping @Sendable () -> Void) {
        onCancel = Mutex(cancel)
    }

    /// Ends the observation. Calling it again does nothing.
    public func cancel() {
        let cancel = onCancel.withLock { onCancel in
            defer { onCancel = nil }
            return onCancel
        }
        cancel?()
    }

    deinit {
        cancel()
    }
}
