import Foundation
import RewindReplay

/// What `rewind profile` prints: one build's profile, or two builds compared.
enum ProfileReport: CommandReport {
    /// The profile, and the slowest actions' events (in the profile's order).
    case single(ReplayProfile, slowest: [EventReport])
    case comparison(ProfileComparisonReport)

    var text: String {
        switch self {
        case let .single(profile, events): Self.text(profile, events: events)
        case let .comparison(report): report.text
        }
    }

    var answersNo: Bool {
        if case let .comparison(report) = self { return report.answersNo }
        return false
    }

    /// A profile's JSON is `ReplayProfile`'s, so that `--baseline` runs (and scripts) decode
    /// it as one, with `slowestEvents` beside it.
    func encode(to encoder: any Encoder) throws {
        switch self {
        case let .single(profile, events):
            try profile.encode(to: encoder)
            var container = encoder.container(keyedBy: ExtraKeys.self)
            try container.encode(events, forKey: .slowestEvents)
        case let .comparison(report):
            try report.encode(to: encoder)
        }
    }

    private enum ExtraKeys: String, CodingKey { case slowestEvents }

    private static func text(_ profile: ReplayProfile, events: [EventReport]) -> String {
        let time = Rendering.duration
        var lines = [
            "profile of \(profile.actions) action\(profile.actions == 1 ? "" : "s") in \(Rendering.sessionList(profile.sessions)): "
                + "reducers took \(time(profile.reducerNanoseconds)) of a \(time(profile.replayNanoseconds)) replay "
                + "(less \(time(profile.timerOverheadNanoseconds)) per action for reading the clock)",
        ]
        guard !profile.cases.isEmpty else { return lines[0] }
        lines.append("")
        let share = { (nanoseconds: UInt64) in
            profile.reducerNanoseconds == 0 ? "—" : String(format: "%.1f %%", Double(nanoseconds) * 100 / Double(profile.reducerNanoseconds))
        }
        lines.append(Rendering.table([["case", "count", "p50", "p99", "max", "total", "share"]] + profile.cases.map { cost in
            [cost.actionCase, "\(cost.count)", time(cost.p50Nanoseconds), time(cost.p99Nanoseconds), time(cost.maxNanoseconds), time(cost.totalNanoseconds), share(cost.totalNanoseconds)]
        }))
        if !events.isEmpty {
            lines.append("")
            lines.append("slowest actions:")
            lines.append(Rendering.table(zip(profile.slowest, events).map { slow, event in ["  " + time(slow.nanoseconds), event.summary] }))
        }
        return lines.joined(separator: "\n")
    }
}

/// Two builds' profiles over the same sessions (`rewind profile --baseline TOOL`).
struct ProfileComparisonReport: CommandReport {
    /// The baseline tool's path.
    var baseline: String
    var comparison: ProfileComparison

    /// A case is slower in every pairing: the command exits 1.
    var answersNo: Bool { !comparison.slower.isEmpty }

    var text: String {
        let time = Rendering.duration
        let percent = String(format: "%g", comparison.threshold * 100)
        var lines = [
            "compared \(comparison.runs) alternated run\(comparison.runs == 1 ? "" : "s") of this build and the baseline \(baseline)",
            comparison.slower.isEmpty
                ? "no case is \(percent) % slower in every pairing"
                : "slower by at least \(percent) % in every pairing: " + comparison.slower.map(\.actionCase).joined(separator: ", "),
        ]
        if !comparison.faster.isEmpty {
            lines.append("faster by at least \(percent) % in every pairing: " + comparison.faster.map(\.actionCase).joined(separator: ", "))
        }
        guard !comparison.cases.isEmpty else { return lines.joined(separator: "\n") }
        lines.append("")
        let median = { (values: [UInt64]) in values.sorted()[values.count / 2] }
        lines.append(Rendering.table([["case", "count", "baseline", "this build", "ratio", "runs", ""]] + comparison.cases.map { change in
            let ratios = change.ratios
            return [
                change.actionCase, "\(change.count)", time(median(change.baselineNanoseconds)), time(median(change.candidateNanoseconds)),
                Self.ratio(change.medianRatio) + "×", Self.ratio(ratios.min() ?? 1) + "–" + Self.ratio(ratios.max() ?? 1),
                change.slower ? "slower" : change.faster ? "faster" : "",
            ]
        }))
        lines.append("(totals per case, medians of the runs; ratio: this build ÷ baseline)")
        return lines.joined(separator: "\n")
    }

    /// `1.04`, `312`, `0.0012`: enough digits to tell a ratio from 0.
    private static func ratio(_ value: Double) -> String {
        String(format: value >= 100 ? "%.0f" : value >= 0.01 ? "%.2f" : "%.2g", value)
    }
}
