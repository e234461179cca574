public import RewindLogCore
extension RecordingDestination {
    /// A log file, opened read-write.
    public static func log(_ log: EventLog) -> RecordingDestination {
        RecordingDestination(log)
    }
}
