public import Rewind

/// The part of a report (``FieldReport``) in the clear: enough for a server to file and group
/// reports without the team's key, and nothing of the user's.
///
/// Every field is a code identifier or a number: the app and its version, why the report was
/// made, and — unless the app seals it too (``ReportOptions/sealsTrigger``) — the case and
/// source line of the action that triggered it. The header is bound to the sealed content as
/// its associated data: changing a byte of it makes the report fail to open.
public struct ReportHeader: Codable, Sendable, Hashable {
    /// Always `rewind-report`.
    public var format = "rewind-report"
    /// The id of the team's key the report is sealed to (``ReportKey/id``).
    public var keyID: String
    /// The HPKE suite (RFC 9180, base mode): ``FieldReport/suiteName``.
    public var suite: String
    /// The app that made it (its id and version, and its schema versions).
    public var app: AppIdentity
    /// Why it was made.
    public var reason: ReportReason
    /// The case of the action that triggered it (the last reduced, for a crash or a hang), when
    /// known and not sealed.
    public var triggerAction: String?
    /// Where that action was dispatched, when known and not sealed.
    public var triggerSource: ActionSource?
    /// When it was sealed (seconds since 1970).
    public var createdAt: Double

    public init(
        keyID: String, app: AppIdentity, reason: ReportReason, triggerAction: String? = nil, triggerSource: ActionSource? = nil, createdAt: Double
    ) {
        self.keyID = keyID
        suite = FieldReport.suiteName
        self.app = app
        self.reason = reason
        self.triggerAction = triggerAction
        self.triggerSource = triggerSource
        self.createdAt = createdAt
    }
}
