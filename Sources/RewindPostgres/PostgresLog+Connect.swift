import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

extension PostgresLog {
    /// How a connection notices a peer that vanished without closing it (a network cut, a
    /// machine gone, a NAT that forgot the flow): TCP keepalive probes after this long idle,
    /// this often, this many times, so that an idle connection is closed within about 25 s
    /// and its next use connects again instead of waiting out a statement deadline.
    static let keepalive = (idleSeconds: 10, intervalSeconds: 5, probes: 3)

    /// Connects to `location` over a socket of our own (postgres-nio's `connect(host:)` sets no
    /// socket option), with TCP keepalive on, then starts the PostgreSQL session on it.
    ///
    /// The session starts on the event loop as soon as the socket connects, in one chain of
    /// futures: a hop to the Swift pool in between could leave a connected socket silent for as
    /// long as the pool is busy, and a server drops a client that says nothing within its
    /// `authentication_timeout`.
    static func connect(
        _ location: PostgresLocation, role: String, connectTimeout: Duration, queryTimeout: Duration, logger: Logger
    ) async throws -> PostgresConnection {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password, database: location.database,
            tls: try tls(for: location)
        )
        configuration.options.connectTimeout = .init(connectTimeout)
        // The server is told the statement deadline too: it ends a statement waiting on a lock
        // or running long on its side, where the client's deadline would only drop the
        // connection (see `queryTimeout`).
        let milliseconds = String(max(1, queryTimeout.components.seconds * 1_000 + queryTimeout.components.attoseconds / 1_000_000_000_000_000))
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", milliseconds), ("lock_timeout", milliseconds),
            // What `pg_stat_activity` shows a database administrator for this connection.
            ("application_name", applicationName(role)),
            // The store's schema first: `COPY` names its table alone (postgres-nio quotes the
            // name whole, so `rewind.events` cannot be given). Every statement names its
            // schema; the default path after it is the server's.
            ("search_path", #"rewind, "$user", public"#),
            // No JIT compilation: the store's statements are many and short, and the planner's
            // estimate for some of them passes `jit_above_cost` — choosing a page's sessions by
            // their bounds among 1,000 (looked up over the events table's 16 partitions) took
            // 104 ms with the query compiled against 4.5 ms without (`EXPLAIN ANALYZE`,
            // PostgreSQL 15).
            // `jit` exists from PostgreSQL 11, as the hash partitions the schema needs do.
            ("jit", "off"),
        ]
        if location.tls == .verifyFull { configuration.options.tlsServerName = location.host }
        let options = configuration.options, tls = configuration.tls
        return try await ClientBootstrap(group: eventLoop)
            .connectTimeout(.init(connectTimeout))
            .channelOption(.socketOption(.so_keepalive), value: 1)
            .channelOption(ChannelOptions.Types.SocketOption(level: .tcp, name: keepaliveIdleOption), value: SocketOptionValue(keepalive.idleSeconds))
            .channelOption(ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_KEEPINTVL)), value: SocketOptionValue(keepalive.intervalSeconds))
            .channelOption(ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_KEEPCNT)), value: SocketOptionValue(keepalive.probes))
            .connect(host: location.host, port: location.port)
            .flatMap { channel in
                var established = PostgresConnection.Configuration(
                    establishedChannel: channel, tls: tls, username: location.user, password: location.password, database: location.database
                )
                established.options = options
                return PostgresConnection.connect(on: eventLoop, configuration: established, id: 1, logger: logger)
                    .flatMapErrorThrowing { error in
                        channel.close(promise: nil)
                        throw error
                    }
            }
            .get()
    }

    /// The name `pg_stat_activity` shows for a connection: `rewind reader`, `rewind writer`, or
    /// `rewind recorder` and the install it records for, so that an administrator (or the
    /// soak run, stopping a recorder's backend) tells them apart. PostgreSQL keeps 63 bytes.
    static func applicationName(_ role: String) -> String {
        var name = ""
        for character in "rewind \(role)" where name.utf8.count + character.utf8.count <= 63 && character.isASCII {
            name.append(character)
        }
        return name
    }

    /// The idle time before the first probe: `TCP_KEEPIDLE` on Linux, `TCP_KEEPALIVE` on Apple
    /// platforms.
    private static var keepaliveIdleOption: NIOBSDSocket.Option {
        #if canImport(Darwin)
        .init(rawValue: TCP_KEEPALIVE)
        #else
        .init(rawValue: TCP_KEEPIDLE)
        #endif
    }

    static func tls(for location: PostgresLocation) throws -> PostgresConnection.Configuration.TLS {
        switch location.tls {
        case .disable:
            return .disable
        case .prefer, .require:
            // libpq's `prefer` and `require` encrypt without checking the certificate.
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .none
            let context = try NIOSSLContext(configuration: configuration)
            return location.tls == .prefer ? .prefer(context) : .require(context)
        case .verifyFull:
            return .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }
}
