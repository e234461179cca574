public import Foundation

/// Where a PostgreSQL log store is and how to sign in: what `rewind` takes wherever it takes a
/// log, as a `postgres://` (or `postgresql://`) URL in libpq's form.
///
/// ```
/// postgres://rewind@db.internal:5432/fleet?sslmode=require
/// postgres://rewind@db.internal:5432/fleet?log=5554158d-cebf-49f1-a25c-ad22796b23de
/// ```
///
/// `log=` names one log of the store (the identity of the log its sessions were pushed from),
/// for what reads one log as a file is read: without it, a store that holds one log means that
/// one. `install=` names instead the sessions one install recorded straight into the store (a
/// service's recorder).
///
/// What the URL leaves out comes from where libpq's own tools look, in this order: the
/// environment (`PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE`, `PGSSLMODE`), the
/// password file (`PGPASSFILE`, else `~/.pgpass`, matched by host, port, database and user),
/// then the defaults (`127.0.0.1`, `5432`, the user's login name, a database named after the
/// user). Credentials are never stored in a log, and ``description`` never shows the password:
/// errors name the location by it.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// How a connection uses TLS: libpq's `sslmode` values.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Never.
        case disable
        /// When the server offers it (libpq's default); otherwise in the clear. The server's
        /// certificate is not checked: only ``verifyFull`` knows whom it talks to.
        case prefer
        /// Always, without checking the server's certificate: a server that offers no TLS is
        /// refused.
        case require
        /// Always, checking the certificate chain and that it names the host.
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    /// `nil` when none was found: a server that asks for one then refuses the connection.
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// The one log of the store the URL names (`log=`, the identity of the log its sessions
    /// were pushed from), or `nil`.
    public var log: UUID?
    /// The install whose sessions recorded into the store the URL names (`install=`), or `nil`.
    public var install: String?

    public init(
        host: String, port: Int = 5432, user: String, password: String? = nil, database: String, tls: TLSMode = .prefer,
        log: UUID? = nil, install: String? = nil
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
        self.log = log
        self.install = install
    }

    /// Whether `text` is meant as a PostgreSQL location rather than a file path.
    public static func isURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Reads a `postgres://` URL, filling what it leaves out from `environment` and the password
    /// file.
    ///
    /// - Parameters:
    ///   - text: The URL.
    ///   - environment: The variables to read (the process's by default).
    ///   - home: The folder `~/.pgpass` is looked for in (the user's home by default).
    /// - Throws: ``PostgresLocationError`` saying what is wrong, without the password.
    public init(
        parsing text: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        home: String = NSHomeDirectory()
    ) throws(PostgresLocationError) {
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw PostgresLocationError("not a postgres:// URL: \(Self.redacting(text))")
        }
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        let host = components.host.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding } ?? value("PGHOST") ?? "127.0.0.1"
        guard !host.hasPrefix("/") else {
            throw PostgresLocationError("\(Self.redacting(text)): Unix-domain sockets are not supported; give a host name or address")
        }
        let port: Int
        if let given = components.port {
            port = given
        } else if let variable = value("PGPORT") {
            guard let number = Int(variable) else { throw PostgresLocationError("PGPORT=\(variable) is not a port number") }
            port = number
        } else {
            port = 5432
        }
        guard (1...65_535).contains(port) else {
            throw PostgresLocationError("\(Self.redacting(text)): port \(port) is outside 1…65535")
        }
        let user = components.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding } ?? value("PGUSER") ?? NSUserName()
        var path = components.path
        if path.hasPrefix("/") { path.removeFirst() }
        guard !path.contains("/") else {
            throw PostgresLocationError("\(Self.redacting(text)): the path must be one database name")
        }
        let database = path.isEmpty ? value("PGDATABASE") ?? user : path.removingPercentEncoding ?? path
        var tls = TLSMode.prefer
        if let mode = components.queryItems?.last(where: { $0.name == "sslmode" })?.value ?? value("PGSSLMODE") {
            guard let known = TLSMode(rawValue: mode) else {
                throw PostgresLocationError("sslmode=\(mode) is not supported: use \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            tls = known
        }
        var log: UUID?
        if let given = components.queryItems?.last(where: { $0.name == "log" }) {
            guard let value = given.value, let id = UUID(uuidString: value) else {
                throw PostgresLocationError("\(Self.redacting(text)): log=\(given.value ?? "") is not a log's identity (a UUID; `rewind sessions` lists them)")
            }
            log = id
        }
        var install: String?
        if let given = components.queryItems?.last(where: { $0.name == "install" }) {
            guard let value = given.value, !value.isEmpty else {
                throw PostgresLocationError("\(Self.redacting(text)): install= needs an install's id (`rewind sessions` lists them)")
            }
            install = value
        }
        if log != nil && install != nil {
            throw PostgresLocationError("\(Self.redacting(text)): log= and install= each name what to read: give one")
        }
        let known = Set(["sslmode", "log", "install"])
        if let unknown = components.queryItems?.first(where: { !known.contains($0.name) }) {
            throw PostgresLocationError("\(Self.redacting(text)): unknown parameter '\(unknown.name)' (only sslmode, log and install are understood)")
        }
        let password = components.password.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding }
            ?? value("PGPASSWORD")
            ?? PostgresPassFile.password(
                path: value("PGPASSFILE") ?? (home as NSString).appendingPathComponent(".pgpass"),
                host: host, port: port, database: database, user: user
            )
        self.init(host: host, port: port, user: user, password: password, database: database, tls: tls, log: log, install: install)
    }

    /// The location as a URL without its password: `postgres://rewind@127.0.0.1:5432/fleet`.
    public var description: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = user
        components.host = host
        components.port = port
        components.path = "/" + database
        var items: [URLQueryItem] = []
        if tls != .prefer { items.append(URLQueryItem(name: "sslmode", value: tls.rawValue)) }
        if let log { items.append(URLQueryItem(name: "log", value: log.uuidString.lowercased())) }
        if let install { items.append(URLQueryItem(name: "install", value: install)) }
        if !items.isEmpty { components.queryItems = items }
        return components.string ?? "postgres://\(host):\(port)/\(database)"
    }

    /// `text` with any password replaced, for errors about a URL that did not parse.
    static func redacting(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else { return text }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":•••" + String(text[at...])
    }
}

/// Why a PostgreSQL location could not be read. Its text never holds a password.
public struct PostgresLocationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
