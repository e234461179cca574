public import RewindLogCore
extension Recorder {
    /// The log file recorded into; `nil` when it records into a store, or into a file
    /// (``init(at:app:configuration:)``) the writer has not opened yet.
    public var log: EventLog? {
        (destination.target as? EventLog) ?? ((destination.target as? OpeningLog)?.current as? EventLog)
    }

    /// Creates a recorder into the log file at `path`, which its writer thread opens (see
    /// ``RecordingDestination/file(_:codecs:keys:)``): making the recorder, binding it to a store
    /// and dispatching touch no disk on the calling thread.
    ///
    /// ```swift
    /// let recorder = Recorder<ShopState, ShopAction>(at: try EventLog.defaultPath(for: shop), app: shop)
    /// let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
    /// ```
    ///
    /// - Parameters:
    ///   - path: The log file, created when missing.
    ///   - app: Who is recording.
    ///   - configuration: Durability, snapshots, codec, redaction, retention, failure handling.
    // Inlinable, as `init(into:app:configuration:)` is, for the batch encoding it makes.
    @inlinable @inline(__always)
    public convenience init(at path: String, app: AppIdentity, configuration: RecorderConfiguration<State, Action> = RecorderConfiguration()) {
        self.init(into: .file(path), app: app, configuration: configuration)
    }

    /// Creates a recorder and starts its writer thread. Recording begins when a store binds
    /// `middleware`.
    ///
    /// - Parameters:
    ///   - log: The log, opened read-write.
    ///   - app: Who is recording.
    ///   - configuration: Durability, snapshots, codec, redaction, retention, failure handling.
    @inlinable @inline(__always)
    public convenience init(log: EventLog, app: AppIdentity, configuration: RecorderConfiguration<State, Action> = RecorderConfiguration()) {
        self.init(into: .log(log), app: app, configuration: configuration)
    }
}
