#if PostgreSQL
import Foundation
import RewindPostgres
import Synchronization

/// A store's URL as the command line gives it: parsed, with its errors in the CLI's words, and
/// a warning on standard error, once per URL, when it puts a password at risk:
///
/// - **A password in the URL.** Other users of the machine read it in `ps`, and it stays in
///   the shell's history. `PGPASSWORD`, `~/.pgpass` or the file `PGPASSFILE` names keep it out.
/// - **A password sent unverified.** Under `sslmode=disable`, `prefer` or `require` the
///   server's certificate is not checked, so whoever sits between can pose as the server and
///   read the password. Loopback and Unix-socket hosts are exempt: nothing sits between.
enum StoreURL {
    private static let warned = Mutex<Set<String>>([])

    /// The location `url` names.
    static func parse(_ url: String) throws -> PostgresLocation {
        let location: PostgresLocation
        do { location = try PostgresLocation(parsing: url) } catch { throw InputError(error.description) }
        for warning in warnings(url, location) where warned.withLock({ $0.insert(warning).inserted }) {
            FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
        }
        return location
    }

    /// What is risky about `url`, one sentence each.
    static func warnings(_ url: String, _ location: PostgresLocation) -> [String] {
        var warnings: [String] = []
        if let password = URLComponents(string: url)?.password, !password.isEmpty {
            warnings.append("""
                the URL \(location) holds a password on the command line, where other users of this machine \
                can read it (ps) and your shell's history keeps it; leave it out and set PGPASSWORD, or put it \
                in ~/.pgpass (or the file PGPASSFILE names)
                """)
        }
        if location.password != nil, location.tls != .verifyFull, !isLocal(location.host) {
            let how = location.tls == .disable ? "unencrypted (sslmode=disable)" : "to a server whose certificate is not checked (sslmode=\(location.tls.rawValue))"
            warnings.append("""
                the password for \(location.host) is sent \(how): whoever can intercept the connection can \
                pose as the server and read it; use sslmode=verify-full
                """)
        }
        return warnings
    }

    /// Whether nothing sits between this machine and `host`: loopback, or a Unix socket's folder.
    private static func isLocal(_ host: String) -> Bool {
        host.hasPrefix("/") || ["localhost", "::1", "[::1]"].contains(host.lowercased()) || host.hasPrefix("127.")
    }
}
#endif
