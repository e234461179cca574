public import RewindLogCore
extension RecordingDestination {
    /// A log file, opened read-write.
    public static func log(_ log: EventLog) -> RecordingDestination {
        RecordingDestination(log)
    }

    /// The log file at `path`, which the recorder's writer thread opens — creating it when
    /// missing, migrating an older one, checking it — so that the thread making the recorder
    /// (an app's main thread at launch) touches no disk. The recorder owns it and closes it.
    ///
    /// A log that cannot be opened (a full disk, a file from a newer Rewind) is a session that
    /// cannot begin: reported to `onFailure`, thrown by `flush()`, tried again at each batch,
    /// and what was dispatched meanwhile is a gap once it opens. The app runs on.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - codecs: The codecs it decodes with.
    ///   - keys: The key new sessions are encrypted with, and those others are read with.
    public static func file(_ path: String, codecs: PayloadCodecs = .standard, keys: LogKeys = LogKeys()) -> RecordingDestination {
        RecordingDestination(OpeningLog(path: path) { () throws(EventLogError) -> any RecordingLog in
            let log = try EventLog(path: path, codecs: codecs, keys: keys)
            log.openedForRecorder.store(true, ordering: .releasing)
            return log
        })
    }
}
