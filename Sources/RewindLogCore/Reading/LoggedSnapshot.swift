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
    /// The state as its session's codec encoded it, and sealed when ``keyID`` is not `nil`
    /// (a snapshot the log stores deflated is inflated when read).
    public var state: Data
    /// The id of the key its session is encrypted with; `nil` when it is stored in the clear.
    public var keyID: String? = nil

    /// A snapshot as a store read it.
    public init(session: Int64, seq: Int64, time: Double, kind: String, state: Data, keyID: String? = nil) {
        (self.session, self.seq, self.time, self.kind, self.state, self.keyID) = (session, seq, time, kind, state, keyID)
    }

    /// Decodes the state.
    ///
    /// - Parameters:
    ///   - type: The app's state type.
    ///   - codec: The session's codec.
    ///   - path: The log's path, for the error.
    /// - Returns: The state.
    /// - Throws: A decoding error naming the snapshot; ``EventLogError/keyMissing(path:session:keyID:)``
    ///   for an encrypted state (replay reads it with the log's keys).
    public func decodeState<State: Decodable>(as type: State.Type, codec: any PayloadCodec, path: String) throws(EventLogError) -> State {
        if let keyID { throw .keyMissing(path: path, session: session, keyID: keyID) }
        return try DecodingFailure.map(path: path, seq: seq, actionCase: "\(kind) snapshot") {
            try codec.decode(type, from: state)
        }
    }
}
