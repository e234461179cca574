public import Foundation
import Rewind

/// A snapshot as the log holds it.
public struct LoggedSnapshot: Sendable, Hashable {
    /// The session it belongs to.
    public var session: Int64
    /// The event the state follows (the session's base seq for its initial state).
    public var seq: Int64
    /// When it was taken, in seconds since 1970.
    public var time: Double
    /// `initial`, `periodic` or `retention`.
    public var kind: String
    /// The encoded state.
    public var state: Data

    /// Decodes the state.
    ///
    /// - Parameters:
    ///   - type: The app's state type.
    ///   - codec: The session's codec.
    ///   - path: The log's path, for the error.
    /// - Returns: The state.
    public func decodeState<State: Decodable>(as type: State.Type, codec: any PayloadCodec, path: String) throws(EventLogError) -> State {
        try DecodingFailure.map(path: path, seq: seq, actionCase: "\(kind) snapshot") {
            try codec.decode(type, from: state)
        }
    }
}
