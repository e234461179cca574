public import RewindLogCore
extension Recorder {
    /// The log file recorded into; `nil` when it records into a store.
    public var log: EventLog? {
        destination.target as? EventLog
    }

    /// Creates a recorder and starts its writer thread. Recording begins when a store binds
    /// `middleware`.
    ///
    /// - Parameters:
    ///   - log: The log, opened read-write.
    ///   - app: Who is recording.
    ///   - configuration: Durability, snapshots, codec, redaction, retention, failure handling.
    public convenience init(log: EventLog, app: AppIdentity, configuration: RecorderConfiguration<State, Action> = RecorderConfiguration()) {
        self.init(into: .log(log), app: app, configuration: configuration)
    }
}
