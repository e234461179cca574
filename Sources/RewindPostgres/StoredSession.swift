public import Foundation
public import RewindLog

/// A session as a PostgreSQL store lists it: its store number and global UUID, where it came
/// from, and who recorded it — what fleet questions select by.
public struct StoredSession: Sendable, Hashable, Codable, Identifiable {
    /// Its number in the store.
    public var id: Int64
    /// Its global identity: the same session pushed twice is one.
    public var uuid: UUID
    /// The install or device that recorded it.
    public var install: String?
    /// The log it was pushed from (`nil` when recorded into the store), and its number there:
    /// the number a pull gives it back.
    public var log: UUID?
    public var numberInLog: Int64
    /// Who recorded it.
    public var app: AppIdentity
    public var startedAt: Double
    public var eventCount: Int64
    /// When its last event was recorded (seconds since 1970); `nil` when it has none.
    public var lastEventAt: Double?
}
