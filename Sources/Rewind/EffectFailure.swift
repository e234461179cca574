import Foundation

/// An error thrown by an effect, with the source of the code that started the effect.
///
/// Effects never crash the store: a thrown error (other than cancellation) ends that effect and
/// is handed to the store's failure handler as an `EffectFailure`.
public struct EffectFailure: Error, Sendable, CustomStringConvertible {
    /// The error the effect threw.
    public let error: any Error
    /// Where the effect was created (the middleware line that built it).
    public let source: ActionSource
    /// The effect's identifier, if it had one.
    public let id: EffectID?

    /// Creates a failure report.
    ///
    /// - Parameters:
    ///   - error: The error the effect threw.
    ///   - source: Where the effect was created.
    ///   - id: The effect's identifier, if any.
    public init(error: any Error, source: ActionSource, id: EffectID?) {
        self.error = error
        self.source = source
        self.id = id
    }

    /// `effect started at Shop/ShopEffects.swift:40 … failed: …`.
    public var description: String {
        let name = id.map { " \"\($0)\"" } ?? ""
        return "effect\(name) started at \(source) failed: \(error)"
    }

    /// The default handler: one line on standard error, prefixed with `rewind:`.
    ///
    /// - Parameter failure: The failure to report.
    @Sendable
    public static func printToStandardError(_ failure: EffectFailure) {
        FileHandle.standardError.write(Data("rewind: \(failure)\n".utf8))
    }
}
