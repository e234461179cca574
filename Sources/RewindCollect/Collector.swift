#if Collector
import Foundation
import HTTPTypes
import Hummingbird
public import RewindLog
public import Logging
import NIOCore
import NIOSSL
import HummingbirdCore
import HummingbirdTLS
import Synchronization


/// `rewind collect`: the server a team runs to receive its apps' reports.
///
/// - `POST /v1/reports` (an ingest token): one sealed report as the body, with
///   `Idempotency-Key` and `Rewind-Install` headers. The report's clear header is read and
///   checked (``FieldReport/init(bytes:path:)``) and must name the token's app; the content is
///   never opened (anyone with the app can seal a report). Stored as received, once per key.
/// - The team's endpoints (a read token): `GET /v1/reports[?app=&limit=&before=]`,
///   `GET /v1/reports/ID` (the bytes), `DELETE /v1/reports/ID`,
///   `DELETE /v1/installs/INSTALL/reports`, `POST /v1/tokens/NAME/revoke`,
///   `PUT /v1/uploads` (`stop` or `accept`: the kill switch), `POST /v1/retention?app=&days=&bytes=`.
/// - `GET /healthz`: 200 once the store is open.
///
/// Plain HTTP for a reverse proxy that terminates TLS, or HTTPS served directly
/// (``CollectorConfiguration/tls``).
///
/// Every refusal is a clear status with a JSON body (`{"error": …}`) and stores nothing: 400
/// for what is not a report, 401 for a missing, wrong or revoked token, 403 for another app's
/// report, 409 for a reused idempotency key with other bytes, 413 past the size cap, 429 past a
/// rate limit, 507 past the app's storage cap or on a full disk, 503 past the uploads taken at
/// once or when the store fails the write (each with `Retry-After`), 410 while uploads are
/// stopped. A request that does not arrive within its deadline is cut off.
public struct Collector: Sendable {
    public let store: any CollectorStore
    public let tokens: CollectorTokens
    public let configuration: CollectorConfiguration
    let logger: Logger
    private let limits: Limits
    private let switches: Switches
    private let usage: Usage
    /// Uploads whose bodies are being read or stored now.
    private let inFlight = Counter()

    public init(
        store: any CollectorStore, tokens: CollectorTokens, configuration: CollectorConfiguration = .init(), logger: Logger = Logger(label: "rewind-collect")
    ) {
        self.store = store
        self.tokens = tokens
        self.configuration = configuration
        self.logger = logger
        limits = Limits(configuration)
        switches = Switches(store: store)
        usage = Usage(store: store)
    }

    /// Serves until SIGINT or SIGTERM, then stops taking connections and finishes the requests
    /// in flight (Hummingbird's graceful shutdown).
    ///
    /// - Parameter onListening: Called with the port once the server listens.
    /// - Throws: ``TLSError`` when ``CollectorConfiguration/tls`` names files that are not a
    ///   PEM certificate chain and its key, before anything listens; ``ListenError`` when it
    ///   cannot listen where ``CollectorConfiguration/host`` and ``CollectorConfiguration/port``
    ///   say (the port taken, a privileged port, an address not this machine's).
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let deadline = TimeAmount.seconds(Int64(configuration.requestDeadlineSeconds))
        // The request deadline runs from the connection's opening: it also ends a TLS handshake
        // that stalls or trickles (the handshake happens before any request arrives).
        var server = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: [RequestDeadline(deadline: deadline)], idleTimeout: .seconds(60)))
        if let tls = configuration.tls { server = try .tls(server, tlsConfiguration: try Self.tlsConfiguration(tls)) }
        let listening = Atomic<Bool>(false)
        let app = Application(
            router: router(),
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "rewind-collect"),
            onServerRunning: { channel in
                listening.store(true, ordering: .releasing)
                onListening(channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await app.runService() }
                group.addTask { await retainHourly() }
                // The server returns after a signal's graceful shutdown; retention stops with it.
                try await group.next()
                group.cancelAll()
            }
        } catch where !listening.load(ordering: .acquiring) {
            throw ListenError(host: configuration.host, port: configuration.port, underlying: error)
        }
    }

    /// Why the collector could not listen where it was told: the address and port, what the
    /// system said, and what to do about it.
    public struct ListenError: Error, CustomStringConvertible {
        /// The address it was to listen on (``CollectorConfiguration/host``).
        public var host: String
        /// The port it was to listen on (``CollectorConfiguration/port``).
        public var port: Int
        /// The system's error (SwiftNIO's).
        public var underlying: any Error

        public var description: String {
            let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            let hint: String
            switch (underlying as? IOError)?.errnoCode {
            case EADDRINUSE?: hint = "the port is taken (another collector, or another server): choose another with --listen HOST:PORT, or port 0 for a free one"
            case EACCES?: hint = "ports below 1024 need privileges: choose a higher port and put a proxy in front"
            case EADDRNOTAVAIL?: hint = "\(host) is not an address of this machine"
            default: hint = "\(underlying)"
            }
            return "cannot listen on \(address): \(hint)"
        }
    }

    /// Why ``CollectorConfiguration/tls`` cannot be served: which file, and what is wrong.
    public struct TLSError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Checks `files` as ``run(onListening:)`` would load them: a missing or unreadable file,
    /// one that is not PEM, or a key that does not match the certificate is a ``TLSError``.
    public static func checkTLS(_ files: CollectorConfiguration.TLSFiles) throws {
        _ = try tlsConfiguration(files)
    }

    /// The server's TLS configuration from `files`: TLS 1.2 at least, NIOSSL's defaults
    /// otherwise.
    static func tlsConfiguration(_ files: CollectorConfiguration.TLSFiles) throws -> TLSConfiguration {
        for path in [files.certificateChain, files.privateKey] where !FileManager.default.isReadableFile(atPath: path) {
            throw TLSError(description: "\(path): " + (FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file"))
        }
        let chain: [NIOSSLCertificate], key: NIOSSLPrivateKey
        do { chain = try NIOSSLCertificate.fromPEMFile(files.certificateChain) } catch {
            throw TLSError(description: "\(files.certificateChain): not a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else { throw TLSError(description: "\(files.certificateChain): holds no certificate") }
        do { key = try NIOSSLPrivateKey(file: files.privateKey, format: .pem) } catch {
            throw TLSError(description: "\(files.privateKey): not a PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        // A context made now checks the key against the certificate (BoringSSL refuses a key
        // whose public half is not the certificate's).
        do { _ = try NIOSSLContext(configuration: configuration) } catch {
            throw TLSError(description: "\(files.privateKey): not the private key of the certificate in \(files.certificateChain) (\(error))")
        }
        return configuration
    }

    /// Applies ``CollectorConfiguration/retentionDays`` to every app now and each hour after.
    private func retainHourly() async {
        guard let days = configuration.retentionDays else { return }
        while !Task.isCancelled {
            do {
                let apps = try await store.apps()
                for app in apps {
                    let deleted = try await store.applyRetention(app: app, olderThan: Date(timeIntervalSinceNow: -Double(days) * 86_400), maxBytes: nil)
                    if deleted > 0 { logger.info("retention deleted reports", metadata: ["app": "\(LogText.printable(app))", "reports": "\(deleted)"]) }
                }
            } catch {
                logger.error("retention failed", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(3600))
        }
    }

    // MARK: - Routes

    func router() -> Router<CollectorContext> {
        let router = Router(context: CollectorContext.self)
        router.add(middleware: AddressLimit(limits: limits))
        router.get("healthz") { _, _ in Self.json(.ok, ["status": "ok"]) }
        router.post("v1/reports") { request, context in try await receive(request, context) }
        router.get("v1/reports") { request, _ in
            guard try await admitted(request, as: .read) != nil else { return Self.unauthorized }
            let query = request.uri.queryParameters
            let limit = min(max(query.get("limit", as: Int.self) ?? 100, 0), 1000)
            let reports = try await store.reports(app: query.get("app"), limit: limit, beforeID: query.get("before", as: Int64.self))
            return try Self.encoded(.ok, reports)
        }
        router.get("v1/reports/:id") { request, context in
            guard try await admitted(request, as: .read) != nil else { return Self.unauthorized }
            guard let id = context.parameters.get("id", as: Int64.self), let bytes = try await store.bytes(id: id) else {
                return Self.json(.notFound, ["error": "no such report"])
            }
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.delete("v1/reports/:id") { request, context in
            guard try await admitted(request, as: .read) != nil else { return Self.unauthorized }
            guard let id = context.parameters.get("id", as: Int64.self), try await store.delete(id: id) else {
                return Self.json(.notFound, ["error": "no such report"])
            }
            return Self.json(.ok, ["status": "deleted"])
        }
        router.delete("v1/installs/:install/reports") { request, context in
            guard try await admitted(request, as: .read) != nil else { return Self.unauthorized }
            let erased = try await store.erase(install: context.parameters.get("install") ?? "")
            return Self.json(.ok, ["status": "erased", "reports": "\(erased)"])
        }
        router.post("v1/tokens/:name/revoke") { request, context in
            guard try await admitted(request, as: .read) != nil else { return Self.unauthorized }
            let name = context.parameters.get("name") ?? ""
            guard tokens.tokens.contains(where: { $0.name == name }) else { return Self.json(.notFound, ["error": "no token of that name"]) }
            try await store.revoke(token: name, at: Date())
            switches.invalidate()
            logger.notice("token revoked", metadata: ["token": "\(LogText.printable(name))"])
            return Self.json(.ok, ["status": "revoked"])
        }
        router.put("v1/uploads") { request, _ in
            guard try await admitted(request, as: .read) != nil else { return Self.unauthorized }
            let body = String(buffer: try await request.body.collect(upTo: 64)).trimmingCharacters(in: .whitespacesAndNewlines)
            guard body == "stop" || body == "accept" else { return Self.json(.badRequest, ["error": "the body is `stop` or `accept`"]) }
            try await store.setSetting(Switches.stopSetting, to: body == "stop" ? "stopped" : nil)
            switches.invalidate()
            logger.notice("uploads \(body == "stop" ? "stopped" : "accepted")")
            return Self.json(.ok, ["uploads": body == "stop" ? "stopped" : "accepted"])
        }
        router.post("v1/retention") { request, _ in
            guard try await admitted(request, as: .read) != nil else { return Self.unauthorized }
            let query = request.uri.queryParameters
            guard let app = query.get("app") else { return Self.json(.badRequest, ["error": "name the app: ?app=ID"]) }
            let days = query.get("days", as: Int.self), bytes = query.get("bytes", as: Int.self)
            // A mistyped bound must not delete an app's every report: days from 1, bytes from 0.
            guard days != nil || bytes != nil, (days ?? 1) >= 1, (bytes ?? 0) >= 0 else {
                return Self.json(.badRequest, ["error": "give days=N (1 or more) and/or bytes=N (0 or more)"])
            }
            let deleted = try await store.applyRetention(
                app: app, olderThan: days.map { Date(timeIntervalSinceNow: -Double($0) * 86_400) }, maxBytes: bytes
            )
            return Self.json(.ok, ["status": "applied", "deleted": "\(deleted)"])
        }
        return router
    }

    /// `POST /v1/reports`.
    private func receive(_ request: Request, _ context: CollectorContext) async throws -> Response {
        guard let token = try await admitted(request, as: .ingest) else { return Self.unauthorized }
        if try await switches.stopped() {
            return Self.json(.gone, ["error": "uploads are stopped by the team; do not retry"], headers: [.rewindUploads: "stop"])
        }
        let idempotencyKey = request.headers[.idempotencyKey] ?? ""
        let install = request.headers[.rewindInstall] ?? ""
        guard Self.isPlainIdentifier(idempotencyKey, maxLength: 128) else {
            return Self.json(.badRequest, ["error": "an Idempotency-Key header of 1 to 128 letters, digits, '-', '_' or '.' is needed"])
        }
        guard Self.isPlainIdentifier(install, maxLength: 128) else {
            return Self.json(.badRequest, ["error": "a Rewind-Install header of 1 to 128 letters, digits, '-', '_' or '.' is needed"])
        }
        if let retry = limits.perToken.admit(token.name) ?? limits.perInstall.admit(token.name + "/" + install) {
            return Self.json(.tooManyRequests, ["error": "too many uploads; retry later"], headers: [.retryAfter: "\(retry)"])
        }
        // At most so many bodies in memory at once: past it, come back shortly.
        guard inFlight.value.add(1, ordering: .relaxed).newValue <= configuration.maxConcurrentUploads else {
            inFlight.value.subtract(1, ordering: .relaxed)
            return Self.json(.serviceUnavailable, ["error": "too many uploads at once; retry shortly"], headers: [.retryAfter: "5"])
        }
        defer { inFlight.value.subtract(1, ordering: .relaxed) }
        let cap = configuration.maxReportBytes
        if let length = request.headers[.contentLength].flatMap(Int.init), length > cap {
            return Self.json(.contentTooLarge, ["error": "a report has at most \(cap) bytes"])
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: cap)
        } catch is NIOTooManyBytesError {
            return Self.json(.contentTooLarge, ["error": "a report has at most \(cap) bytes"])
        }
        let bytes = Data(buffer: body)
        let report: FieldReport
        do {
            report = try FieldReport(bytes: bytes, path: "upload")
        } catch {
            return Self.json(.badRequest, ["error": String("\(error)".dropFirst("upload: ".count))])
        }
        guard report.header.app.id == token.app else {
            return Self.json(.forbidden, ["error": "this token uploads reports of \(token.app ?? "no app"), not of this report's app"])
        }
        if try await usage.bytes(of: report.header.app.id) + bytes.count > configuration.maxAppBytes {
            // A retry of a report stored before the cap was reached is answered as stored.
            if let stored = try await store.stored(idempotencyKey: idempotencyKey) {
                return stored.digest == ReportDigest.hex(of: bytes)
                    ? Self.json(.ok, ["status": "duplicate", "id": "\(stored.id)"])
                    : Self.json(.conflict, ["error": "this idempotency key was used for another report"])
            }
            return Self.json(.init(code: 507, reasonPhrase: "Insufficient Storage"), ["error": "the app's reports are at the collector's storage cap"], headers: [.retryAfter: "3600"])
        }
        let receipt: ReportReceipt
        do {
            receipt = try await store.receive(bytes, header: report.header, idempotencyKey: idempotencyKey, install: install, token: token.name, receivedAt: Date())
        } catch {
            // Nothing was stored (one transaction, or one statement): the uploader keeps the
            // report and tries again later.
            logger.error("a report could not be stored", metadata: ["error": "\(error)"])
            if case .diskFull = error {
                return Self.json(.init(code: 507, reasonPhrase: "Insufficient Storage"), ["error": "the collector's disk is full; retry later"], headers: [.retryAfter: "600"])
            }
            return Self.json(.serviceUnavailable, ["error": "the collector's store is unavailable; retry later"], headers: [.retryAfter: "30"])
        }
        switch receipt {
        case .stored(let id):
            usage.add(bytes.count, to: report.header.app.id)
            logger.info("report stored", metadata: ["id": "\(id)", "app": "\(LogText.printable(report.header.app.id))", "bytes": "\(bytes.count)"])
            return Self.json(.created, ["status": "stored", "id": "\(id)"])
        case .duplicate(let id):
            return Self.json(.ok, ["status": "duplicate", "id": "\(id)"])
        case .conflict:
            return Self.json(.conflict, ["error": "this idempotency key was used for another report"])
        }
    }

    /// The token a request's `Authorization: Bearer …` names, if it is one of `kind` and not revoked.
    private func admitted(_ request: Request, as kind: CollectorTokens.Kind) async throws -> CollectorTokens.Token? {
        guard let value = request.headers[.authorization], value.hasPrefix("Bearer ") else { return nil }
        guard let token = tokens.match(String(value.dropFirst(7))), token.kind == kind else { return nil }
        return try await switches.revoked(token.name) ? nil : token
    }

    /// Letters, digits, `-`, `_` and `.`: what an idempotency key or an install id may hold.
    static func isPlainIdentifier(_ text: String, maxLength: Int) -> Bool {
        (1...maxLength).contains(text.utf8.count)
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
    }

    static var unauthorized: Response { json(.unauthorized, ["error": "a valid token is needed (Authorization: Bearer TOKEN)"]) }

    static func json(_ status: HTTPResponse.Status, _ body: [String: String], headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func encoded(_ status: HTTPResponse.Status, _ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
    static let rewindInstall = Self("Rewind-Install")!
    /// `stop` on a 410: the team stopped uploads.
    static let rewindUploads = Self("Rewind-Uploads")!
}

extension Collector {
    /// The rate limits, per process.
    struct Limits: Sendable {
        let perToken: RateLimiter
        let perInstall: RateLimiter
        let perAddress: RateLimiter

        init(_ configuration: CollectorConfiguration) {
            perToken = RateLimiter(limit: configuration.uploadsPerTokenPerMinute, window: 60)
            perInstall = RateLimiter(limit: configuration.uploadsPerInstallPerHour, window: 3600)
            perAddress = RateLimiter(limit: configuration.requestsPerAddressPerMinute, window: 60)
        }
    }

    /// The per-address limit, before anything else is read.
    struct AddressLimit: RouterMiddleware {
        let limits: Limits

        func handle(_ request: Request, context: CollectorContext, next: (Request, CollectorContext) async throws -> Response) async throws -> Response {
            let address = context.remoteAddress?.ipAddress ?? "unknown"
            if let retry = limits.perAddress.admit(address) {
                return Collector.json(.tooManyRequests, ["error": "too many requests; retry later"], headers: [.retryAfter: "\(retry)"])
            }
            return try await next(request, context)
        }
    }

    /// A count shared by the collector's copies (it is a struct; the routes capture it).
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Each app's stored bytes, for the storage cap: read from the store (a sum over the app's
    /// reports) at most every 5 seconds, with what this collector stored since added. Summing
    /// on every upload would cost each upload a scan of the app's reports. Across collectors on
    /// one store the cap can be passed by what the others stored in those seconds.
    final class Usage: Sendable {
        private let store: any CollectorStore
        private let cache = Mutex<[String: (read: Double, bytes: Int)]>([:])

        init(store: any CollectorStore) {
            self.store = store
        }

        func bytes(of app: String) async throws -> Int {
            let now = Date().timeIntervalSince1970
            if let cached = cache.withLock({ $0[app] }), now - cached.read < 5 { return cached.bytes }
            let bytes = try await store.usage(app: app).bytes
            cache.withLock { $0[app] = (now, bytes) }
            return bytes
        }

        func add(_ bytes: Int, to app: String) {
            cache.withLock { cache in cache[app]?.bytes += bytes }
        }
    }

    /// The kill switch and the revoked tokens, read from the store (shared by every collector
    /// on it) at most once a second.
    final class Switches: Sendable {
        static let stopSetting = "uploads"
        private let store: any CollectorStore
        private let cache = Mutex<(read: Double, stopped: Bool, revoked: Set<String>)?>(nil)

        init(store: any CollectorStore) {
            self.store = store
        }

        func stopped() async throws -> Bool { try await current().stopped }
        func revoked(_ name: String) async throws -> Bool { try await current().revoked.contains(name) }
        func invalidate() { cache.withLock { $0 = nil } }

        private func current() async throws -> (stopped: Bool, revoked: Set<String>) {
            let now = Date().timeIntervalSince1970
            if let cached = cache.withLock({ $0 }), now - cached.read < 1 { return (cached.stopped, cached.revoked) }
            let stopped = try await store.setting(Self.stopSetting) == "stopped"
            let revoked = try await store.revokedTokens()
            cache.withLock { $0 = (now, stopped, revoked) }
            return (stopped, revoked)
        }
    }
}
#endif
