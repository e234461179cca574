#if Collector
/// What a collector accepts, and how much: the defaults suit a small team's server.
public struct CollectorConfiguration: Sendable {
    /// The address to listen on: loopback by default. Devices reach it over TLS: through a
    /// reverse proxy that terminates it, or served directly with ``tls``.
    public var host = "127.0.0.1"
    /// The port; 0 picks a free one (printed when listening).
    public var port = 8417
    /// The largest report body taken: 2 MiB (a report's default bound is 512 KiB). Larger is
    /// refused with 413 before it is read.
    public var maxReportBytes = 2 << 20
    /// Uploads taken at once (their bodies in memory): past it, 503 with Retry-After. With the
    /// size cap, this bounds the memory uploads can hold: 64 × 2 MiB by default.
    public var maxConcurrentUploads = 64
    /// The most seconds a request may take to arrive, headers and body: a client trickling
    /// either is cut off at this deadline.
    public var requestDeadlineSeconds = 30
    /// Uploads one ingest token may make a minute (one app's whole fleet).
    public var uploadsPerTokenPerMinute = 6000
    /// Uploads one install may make an hour.
    public var uploadsPerInstallPerHour = 30
    /// Requests one address may make a minute (of any kind).
    public var requestsPerAddressPerMinute = 600
    /// The most bytes of reports kept for one app: past it uploads are refused (507) until
    /// retention or the team deletes some. 1 GiB by default.
    public var maxAppBytes = 1 << 30
    /// Reports older than this many days are deleted (hourly, and at start); `nil` keeps them.
    public var retentionDays: Int? = 90
    /// TLS served by the collector itself (HTTPS); `nil` (the default): plain HTTP, for a
    /// reverse proxy in front that terminates TLS.
    public var tls: TLSFiles?

    public init() {}

    /// A certificate chain and its private key, PEM files, as a certificate authority (or
    /// `certbot`) writes them.
    public struct TLSFiles: Sendable {
        /// The server's certificate first, then any intermediates.
        public var certificateChain: String
        public var privateKey: String

        public init(certificateChain: String, privateKey: String) {
            (self.certificateChain, self.privateKey) = (certificateChain, privateKey)
        }
    }
}
#endif
