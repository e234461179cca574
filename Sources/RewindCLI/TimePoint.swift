import ArgumentParser
import Foundation
import RewindLog

/// A time given on the command line: absolute, or a duration before a reference time.
enum TimePoint: Equatable {
    case absolute(Double)
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
                self = .absolute(date.timeIntervalSince1970)
                return
            }
        }
        return nil
    }

    /// Seconds since 1970.
    func seconds(before end: Double) -> Double {
        switch self {
        case let .absolute(seconds): seconds
        case let .before(duration): end - duration
        }
    }
}
