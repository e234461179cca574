import NIOCore
import NIOPosix
import PostgresNIO
import RewindLog

/// Turns what postgres-nio and NIO throw into an `EventLogError` a person can act on, naming
/// the location without its password.
///
/// postgres-nio's own descriptions are deliberately vague (to keep queries and values out of
/// logs); the error's code, the server's SQLSTATE and message, and the underlying socket error
/// say what happened, and none of them holds the password.
enum PostgresFailure {
    static func describe(_ error: any Error, at location: PostgresLocation, doing what: String) -> EventLogError {
        if let error = error as? EventLogError { return error }
        // A writer that does not settle it (a push: pushing again adds nothing twice) says why
        // the connection was lost.
        if let error = error as? AmbiguousCommit { return describe(error.underlying, at: location, doing: what) }
        let path = location.description
        let server = "\(location.host):\(location.port)"
        if let error = error as? PSQLError {
            let state = error.serverInfo?[.sqlState]
            let message = error.serverInfo?[.message]
            switch error.code {
            case .server where state == "28P01" || state == "28000":
                return .failed(path: path, reason: "the server refused user '\(location.user)': \(message ?? "authentication failed") (check the password in the URL, PGPASSWORD or ~/.pgpass)")
            case .server where state == "3D000":
                return .fileNotFound(path: path + " (the database '\(location.database)' does not exist)")
            case .server where state?.hasPrefix("57P") == true:
                // Admin shutdown, crash shutdown, cannot connect now: the server is going away or
                // not back yet.
                return .failed(path: path, reason: "could not \(what): the server at \(server) is restarting or shutting down (\(message ?? state ?? "")); run it again to resume")
            case .server where state == "57014":
                // query_canceled: statement_timeout, which the store sets to its query timeout.
                return .failed(path: path, reason: "could not \(what): a statement ran past the store's query timeout at \(server) (statement_timeout); a larger store may need a longer one")
            case .server where state == "55P03":
                // lock_not_available: lock_timeout, also the store's query timeout.
                return .failed(path: path, reason: "could not \(what): another session held a lock it needed for longer than the store's query timeout at \(server) (lock_timeout); see pg_locks")
            case .server where state == "42501":
                return .readOnly(path: path, detail: "user '\(location.user)' may not \(what): \(message ?? "permission denied")")
            case .server:
                return .failed(path: path, reason: "could not \(what): \(message ?? "server error")" + (state.map { " (SQLSTATE \($0))" } ?? ""))
            case .sslUnsupported:
                return .failed(path: path, reason: "the server at \(server) offers no TLS, and sslmode=\(location.tls.rawValue) requires it")
            case .authMechanismRequiresPassword:
                return .failed(path: path, reason: "the server asks user '\(location.user)' for a password and none was given (the URL, PGPASSWORD or ~/.pgpass)")
            case .unsupportedAuthMechanism:
                return .failed(path: path, reason: "the server asks for an authentication method this client does not support")
            case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
                // The connection went while in use (a query on a connection the server closed
                // is refused as closed by the client): a restart, a stop, a network cut.
                return .failed(path: path, reason: "could not \(what): the connection to the server at \(server) was lost (restarted, stopped or unreachable); run it again to resume")
            case .connectionError:
                return .failed(path: path, reason: "could not \(what) at \(server): \(underlying(error.underlying))")
            default:
                return .failed(path: path, reason: "could not \(what) at \(server): \(error.code)")
            }
        }
        return .failed(path: path, reason: "could not \(what) at \(server): \(underlying(error))")
    }

    /// Whether the server refused a query for one of its limits (SQLSTATE 54000,
    /// program_limit_exceeded): for a page of arrays, 1 GB on one value ("array size exceeds
    /// the maximum allowed").
    static func isPastValueLimit(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server else { return false }
        return error.serverInfo?[.sqlState] == "54000"
    }

    /// A socket-level error in a few words: "connection refused", "timed out", "no such host".
    private static func underlying(_ error: (any Error)?) -> String {
        guard let error else { return "the connection failed" }
        if let error = error as? NIOConnectionError {
            if error.dnsAAAAError != nil || error.dnsAError != nil, error.connectionErrors.isEmpty { return "no such host" }
            if let first = error.connectionErrors.first { return underlying(first.error) }
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED: return "connection refused (is the server running, and listening there?)"
            case ETIMEDOUT: return "timed out"
            case EHOSTUNREACH, ENETUNREACH: return "no route to the host"
            default: return error.description
            }
        }
        if error is ChannelError, case .connectTimeout = error as? ChannelError { return "timed out waiting for the server" }
        if let error = error as? PSQLError { return "\(error.code)" }
        return String(describing: error)
    }
}
