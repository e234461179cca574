public import Foundation

/// Where a collector (`rewind collect`) keeps the reports its apps upload: a SQLite file
/// (`ReportStore`, the embedded default) or a PostgreSQL database (`PostgresReportStore`, for
/// several collectors behind a load balancer).
///
/// Every store keeps each report as the sealed bytes it arrived as, with its clear header's
/// fields beside them, so that a team lists and groups reports without the key. The content is
/// never opened by a store.
///
/// What every store promises, and the tests check of both:
/// - **Once per idempotency key**, by a unique constraint, not a lookup: a retry after a lost
///   response, or two collectors receiving the same upload at once, store it once; the same key
///   with other bytes is refused (``ReportReceipt/conflict``) and changes nothing.
/// - **Shared**: revoked tokens and the kill switch are rows, which every collector on the
///   store reads.
/// - A stored report is committed durably before ``receive(_:header:idempotencyKey:install:token:receivedAt:)``
///   returns: the uploader deletes its copy on the answer.
public protocol CollectorStore: Sendable {
    /// What errors name the store by (a path, or a URL without its password).
    var name: String { get }

    /// Stores a report as received, once per idempotency key.
    ///
    /// - Parameters:
    ///   - bytes: The sealed report, exactly as received.
    ///   - header: Its clear header, read and checked by the caller (``FieldReport/init(bytes:path:)``).
    ///   - idempotencyKey: The uploader's key for this report.
    ///   - install: The uploader's install id.
    ///   - token: The name of the token it came with.
    ///   - receivedAt: When it arrived.
    func receive(_ bytes: Data, header: ReportHeader, idempotencyKey: String, install: String, token: String, receivedAt: Date) async throws(EventLogError)
        -> ReportReceipt

    /// The report stored under `idempotencyKey`, if any: its id and digest.
    func stored(idempotencyKey: String) async throws(EventLogError) -> (id: Int64, digest: String)?

    /// How many reports and bytes an app has stored.
    func usage(app: String) async throws(EventLogError) -> (count: Int, bytes: Int)

    /// The stored reports, newest first: of one app, or all; at most `limit`, with ids below
    /// `beforeID` (paging).
    func reports(app: String?, limit: Int, beforeID: Int64?) async throws(EventLogError) -> [CollectedReport]

    /// The apps that have reports stored.
    func apps() async throws(EventLogError) -> [String]

    /// A stored report's bytes, exactly as received; `nil` when there is none of that id.
    func bytes(id: Int64) async throws(EventLogError) -> Data?

    /// Deletes a report; whether there was one.
    func delete(id: Int64) async throws(EventLogError) -> Bool

    /// Deletes every report of one install (a user asking to be forgotten); how many.
    func erase(install: String) async throws(EventLogError) -> Int

    /// Keeps an app's reports within an age and a size: deletes those received before
    /// `olderThan`, then the oldest while the app's bytes pass `maxBytes`. Returns how many.
    func applyRetention(app: String, olderThan: Date?, maxBytes: Int?) async throws(EventLogError) -> Int

    /// Revokes a token by name, for every collector on this store.
    func revoke(token: String, at time: Date) async throws(EventLogError)

    /// The names of the revoked tokens.
    func revokedTokens() async throws(EventLogError) -> Set<String>

    /// A setting every collector on the store reads (the kill switch); `nil` when unset.
    func setting(_ name: String) async throws(EventLogError) -> String?

    /// Sets (or with `nil`, clears) a setting.
    func setSetting(_ name: String, to value: String?) async throws(EventLogError)

    /// Closes its connections or files; the store is not used after.
    func close() async
}

extension CollectorStore {
    /// Every stored report (of one app, or all), newest first, read a page at a time.
    public func allReports(app: String? = nil) async throws(EventLogError) -> [CollectedReport] {
        var all: [CollectedReport] = [], before: Int64?
        while true {
            let page = try await reports(app: app, limit: 1000, beforeID: before)
            all += page
            guard page.count == 1000, let last = page.last else { return all }
            before = last.id
        }
    }
}

/// What storing a report did.
public enum ReportReceipt: Sendable, Hashable {
    /// Stored, with this id.
    case stored(id: Int64)
    /// Stored before under the same key, with the same bytes: nothing changed.
    case duplicate(id: Int64)
    /// Stored before under the same key with other bytes: refused.
    case conflict
}

/// A stored report's fields, without its bytes.
public struct CollectedReport: Codable, Sendable, Hashable {
    /// Its id in the store.
    public var id: Int64
    /// Its clear header, as received.
    public var header: ReportHeader
    /// The install that uploaded it.
    public var install: String
    /// The name of the token it came with.
    public var token: String
    /// When it arrived (seconds since 1970).
    public var receivedAt: Double
    /// Its size in bytes.
    public var size: Int
    /// SHA-256 of its bytes, hex (``ReportDigest``).
    public var digest: String

    public init(id: Int64, header: ReportHeader, install: String, token: String, receivedAt: Double, size: Int, digest: String) {
        self.id = id
        self.header = header
        self.install = install
        self.token = token
        self.receivedAt = receivedAt
        self.size = size
        self.digest = digest
    }
}
