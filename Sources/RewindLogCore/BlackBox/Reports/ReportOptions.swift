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
    /// Whether a report the recorder seals by itself (a crash, a hang, an invariant, an error
    /// action) may leave the device as it is, or waits for the user's answer: ready by
    /// default. A report asked for with ``Recorder/report(note:)`` is always ready: the app asks
    /// after the user agreed.
    public var consent = ReportConsent.granted
    /// Where the recorder puts the reports it seals: beside the log file by default
    /// (`<log>-reports`); a recorder into a store must name one.
    public var outbox: ReportOutbox?

    public init(key: ReportKey) {
        self.key = key
    }
}

/// Whether reports may leave the device without asking the user each time
/// (``ReportOptions/consent``). The outbox keeps the answer: ``ReportOutbox/reports()`` lists
/// only the reports ready to send — what an uploader sends — and ``ReportOutbox/heldReports()``
/// those waiting for the user, until ``ReportOutbox/grant(_:)`` or ``ReportOutbox/decline(_:)``.
public enum ReportConsent: String, Sendable, Hashable, CaseIterable {
    /// The user agreed to reports being sent (or the app asks elsewhere): each is ready at once.
    case granted
    /// Each report waits in the outbox, held, until the app asks the user and grants or
    /// declines it. Held reports count toward the outbox's bounds and expire like the others.
    case askFirst
}
