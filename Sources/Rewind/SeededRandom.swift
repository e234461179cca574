public import Foundation

/// A small, seedable random source (SplitMix64) for reproducible simulated sessions and
/// property tests: the same seed gives the same draws on every platform and toolchain.
///
/// Written here rather than taken from the standard library because a session must come out the
/// same from the same seed on every toolchain: `Int.random(in:using:)` and `shuffled(using:)`
/// make no promise about how they consume a generator, so every draw below is our own. It is a
/// `RandomNumberGenerator` too, so a generator closure may write `cases.randomElement(using:
/// &random)`: the draws are then the standard library's, the same from a seed within one
/// toolchain.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; the same seed always yields the same draws.
    ///
    /// - Parameter seed: The starting point: the same seed gives the same numbers on every platform.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<upperBound` (multiply-shift, bias below 2⁻³² for the small bounds used here).
    ///
    /// - Parameter upperBound: The exclusive upper bound; must be positive.
    public mutating func int(below upperBound: Int) -> Int {
        precondition(upperBound > 0, "upper bound must be positive")
        return Int(((next() >> 32) &* UInt64(upperBound)) >> 32)
    }

    /// A number in `range`.
    ///
    /// - Parameter range: The closed range.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + int(below: range.count)
    }

    /// `true` with probability `percent`/100.
    ///
    /// - Parameter percent: The chance, from 0 to 100.
    public mutating func chance(_ percent: Int) -> Bool {
        int(below: 100) < percent
    }

    /// One element of `elements`, or `nil` if it is empty.
    ///
    /// - Parameter elements: The elements to choose from.
    public mutating func element<C: RandomAccessCollection>(of elements: C) -> C.Element? where C.Index == Int {
        guard !elements.isEmpty else { return nil }
        return elements[elements.startIndex + int(below: elements.count)]
    }

    /// A version-4 UUID made of random bits.
    public mutating func uuid() -> UUID {
        let high = next(), low = next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(index)))
            bytes[index + 8] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(index)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        ))
    }
}
