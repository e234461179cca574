import Foundation

/// What the log argument names: a file, or a PostgreSQL store (one of its logs with `log=` or
/// `install=`). Parsed once from the argument, so that no command tells a file from a store by
/// looking at a string, and messages name it the same way everywhere (a store's URL without its
/// password).
enum LogLocation: Equatable, CustomStringConvertible {
    /// A log file at `path`.
    case file(path: String)
    /// A PostgreSQL store at `url` (`postgres://` or `postgresql://`, any case).
    case store(url: String)

    init(argument: String) {
        let lowered = argument.lowercased()
        self = lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") ? .store(url: argument) : .file(path: argument)
    }

    /// Whether it names one log: a file, or a store's URL with `log=` or `install=` (a store's
    /// URL without either may mean its only log, or all of them: `sessions` lists them all).
    var namesOneLog: Bool {
        guard case let .store(url) = self else { return true }
        return URLComponents(string: url)?.queryItems?.contains { ["log", "install"].contains($0.name) } == true
    }

    /// The location as messages name it: a file's path, a store's URL without its password.
    var description: String {
        switch self {
        case let .file(path): path
        case let .store(url): Self.redacted(url)
        }
    }

    /// A URL without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "a postgres:// URL that does not parse" }
        guard components.password != nil else { return url }
        components.password = nil
        return components.string ?? "the store"
    }
}
