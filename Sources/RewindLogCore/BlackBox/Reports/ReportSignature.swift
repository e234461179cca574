public import Rewind

/// What tells one bug's reports from another's, for triage (`rewind reports`): why each was made
/// (the reason's kind and name: the signal, the invariant, the case of a hung or error action),
/// the case and source line of its trigger, and for a crash opened with the team's key, the
/// crash site (the image and offset of the faulting instruction).
///
/// From the clear header alone a server groups reports without the key; a report that seals
/// its trigger (``ReportOptions/sealsTrigger``) groups only by reason until it is opened.
public struct ReportSignature: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Why the report was made.
    public var reason: ReportReason
    /// The trigger's action case, when the header says (or the report was opened).
    public var triggerAction: String?
    /// The trigger's source file and line (`Shop/CartView.swift:42`).
    public var triggerSource: String?
    /// Where a crash struck (`Shop+0x1a2b3`), once the report is opened; `nil` otherwise.
    public var crashSite: String?

    /// The signature of a report: its header, with what its content adds once opened.
    ///
    /// - Parameters:
    ///   - header: The report's clear header.
    ///   - details: Its sealed details, when it was opened with the team's key.
    ///   - trigger: The trigger event's case and source, read from the opened content: what a
    ///     report that seals its trigger (``ReportOptions/sealsTrigger``) groups by once opened.
    public init(header: ReportHeader, details: ReportDetails? = nil, trigger: (action: String, source: ActionSource)? = nil) {
        reason = header.reason
        triggerAction = header.triggerAction ?? trigger?.action
        triggerSource = (header.triggerSource ?? trigger?.source).map { "\($0.file):\($0.line)" }
        if let crash = details?.ending?.crash, let image = crash.image, let offset = crash.imageOffset {
            let name = image.split(separator: "/").last.map(String.init) ?? image
            crashSite = name + "+0x" + String(offset, radix: 16)
        }
    }

    /// `crash (SIGSEGV) · cart.checkout at Shop/CartView.swift:42 · Shop+0x1a2b3`.
    public var description: String {
        var parts = [reason.description]
        if let triggerAction { parts.append(triggerAction + (triggerSource.map { " at " + $0 } ?? "")) }
        if let crashSite { parts.append(crashSite) }
        return parts.joined(separator: " · ")
    }

    public static func < (lhs: ReportSignature, rhs: ReportSignature) -> Bool {
        lhs.description < rhs.description
    }
}
