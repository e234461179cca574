import ArgumentParser
import Foundation
import RewindLog

/// A time given on the command line: absolute, or a duration before a reference time.
///
/// An absolute time stands for the whole unit it is written to: `10:15:00.124Z` is the
/// millisecond from .124 to .125, `10:15:00Z` the whole second, `2026-11-22` the whole day. So
/// a time copied from the tool's output (which truncates to the millisecond) includes its event
/// both as `--since` and as `--until`.
enum TimePoint: Equatable {
    /// Seconds since 1970 and the length of the unit the time was written to.
    case absolute(Double, unit: Double)
    case before(Double)

    init?(_ text: String) {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        if let unit = text.last.flatMap({ units[$0] }), let amount = Double(text.dropLast()), amount >= 0, amount.isFinite {
            self = .before(amount * unit)
            return
        }
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) {
                self = .absolute(date.timeIntervalSince1970, unit: Self.unit(of: text, options))
                return
            }
        }
        return nil
    }

    /// The unit `text` is written to: a day for a date, else a second divided by ten for each
    /// digit of its fraction.
    private static func unit(of text: String, _ options: ISO8601DateFormatter.Options) -> Double {
        guard options.contains(.withTime) || options.contains(.withInternetDateTime) else { return 86_400 }
        guard let dot = text.firstIndex(of: ".") else { return 1 }
        let digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }.count
        return pow(10, -Double(min(digits, 9)))
    }

    /// Seconds since 1970 of the time's first instant.
    func seconds(before end: Double) -> Double {
        switch self {
        case let .absolute(seconds, _): seconds
        case let .before(duration): end - duration
        }
    }

    /// Seconds since 1970 of the time's last instant: just before the next unit begins.
    func lastSecond(before end: Double) -> Double {
        switch self {
        case let .absolute(seconds, unit): (seconds + unit).nextDown
        case let .before(duration): end - duration
        }
    }
}
