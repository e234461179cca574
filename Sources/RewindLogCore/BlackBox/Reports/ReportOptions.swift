import Foundation

/// How reports are made: the team's key they are sealed to, the window of events they keep,
/// their size bound and what they say about the device.
///
/// ```swift
/// var options = ReportOptions(key: try ReportKey(line: teamPublicKeyLine))
/// options.window = .events(500)
/// options.device = ["os": "iOS 18.2"]        // nothing about the device by default
/// ```
public struct ReportOptions: Sendable {
    /// Which events before the trigger a report keeps.
    public enum Window: Sendable, Hashable {
        /// The last `count` events up to and including the trigger.
        case events(Int)
        /// The events of the last `seconds` up to the trigger.
        case seconds(Double)
        /// The whole session up to the trigger.
        case session
    }

    /// The team's public key.
    public var key: ReportKey
    /// The events before the trigger to keep, from the nearest snapshot at or before the first
    /// of them: 2,000 by default.
    public var window: Window = .events(2_000)
    /// The most bytes a report file may have: 512 KiB by default. A window that does not fit is
    /// halved (keeping its trigger and the snapshot it starts from) until it does; one that does
    /// not fit with the trigger alone is kept whole and flagged
    /// (``ReportDetails/exceedsBound``), never dropped.
    public var sizeLimit = 512 << 10
    /// How many actions after a trigger that does not end the app (an error action) its report
    /// keeps, to show what followed: 20 by default.
    public var eventsAfterTrigger = 20
    /// Whether the trigger's action case and source line are sealed too, rather than in the
    /// clear header where a server groups reports by them (the default: they are code
    /// identifiers, not user data).
    public var sealsTrigger = false
    /// What the report says about the device — OS, model — as the app chooses: nothing by
    /// default. Sealed, never in the header.
    public var device: [String: String] = [:]
    /// Where the recorder puts the reports it seals: beside the log file by default
    /// (`<log>-reports`); a recorder into a store must name one.
    public var outbox: ReportOutbox?

    public init(key: ReportKey) {
        self.key = key
    }
}
