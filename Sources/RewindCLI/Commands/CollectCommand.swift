import ArgumentParser
import Foundation
import RewindLog
#if Collector
import RewindCollect
#endif

/// `rewind collect`: the server that receives apps' reports (built with the Collector trait),
/// and `rewind collect token`, which makes its tokens.
struct CollectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collect",
        abstract: "Receive apps' sealed reports over HTTP: the team's collector server.",
        discussion: """
            The collector stores each report as it arrives (the sealed bytes and the clear \
            header), once per idempotency key, in STORE: a SQLite file, created when missing, or \
            a PostgreSQL database (postgres://…) that several collectors may share. \
            Reports are listed and grouped with `rewind reports STORE`, fetched with \
            `rewind report fetch STORE ID`. Tokens: `rewind collect token`.
            """,
        subcommands: [Serve.self, Token.self],
        defaultSubcommand: Serve.self
    )
}

extension CollectCommand {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Run the collector (the default: `rewind collect --store … --tokens …`).",
            discussion: """
                It listens on 127.0.0.1 unless told otherwise. Devices reach it over HTTPS: \
                through a reverse proxy that terminates TLS (the RewindUpload article shows one), \
                or served by the collector itself with --tls-certificate and --tls-key. SIGINT or \
                SIGTERM stops it after the uploads in flight finish. Logs go to standard error.
                """
        )

        @Option(help: ArgumentHelp("The reports' store: a SQLite file (created when missing) or a postgres:// URL.", valueName: "location")) var store: String
        @Option(help: ArgumentHelp("Where to listen: HOST:PORT (port 0 picks a free one).", valueName: "host:port")) var listen = "127.0.0.1:8417"
        @Option(help: ArgumentHelp("The tokens file (`rewind collect token` writes it).", valueName: "path")) var tokens: String
        // Unset options keep CollectorConfiguration's defaults, which the help quotes.
        @Option(name: .customLong("max-report-bytes"), help: "The largest report taken, in bytes (default 2 MiB).") var maxReportBytes: Int?
        @Option(name: .customLong("max-app-bytes"), help: "The most bytes of reports kept for one app; past it uploads are refused (default 1 GiB).")
        var maxAppBytes: Int?
        @Option(name: .customLong("uploads-per-install-per-hour"), help: "Uploads one install may make an hour (default 30).")
        var perInstall: Int?
        @Option(name: .customLong("uploads-per-token-per-minute"), help: "Uploads one ingest token (one app's fleet) may make a minute (default 6,000).")
        var perToken: Int?
        @Option(name: .customLong("requests-per-address-per-minute"), help: "Requests one address may make a minute, of any kind (default 600).")
        var perAddress: Int?
        @Option(name: .customLong("max-concurrent-uploads"), help: "Uploads taken at once, their bodies in memory; past it, 503 (default 64).")
        var maxConcurrentUploads: Int?
        @Option(name: .customLong("request-deadline"), help: "Seconds a request may take to arrive, headers and body (default 30).")
        var requestDeadline: Int?
        @Option(name: .customLong("retention-days"), help: "Delete reports older than this many days; 0 keeps them (default 90).")
        var retentionDays: Int?
        @Option(name: .customLong("tls-certificate"), help: ArgumentHelp("Serve HTTPS with this certificate chain (PEM; the server's first).", valueName: "path"))
        var tlsCertificate: String?
        @Option(name: .customLong("tls-key"), help: ArgumentHelp("The certificate's private key (PEM), with --tls-certificate.", valueName: "path"))
        var tlsKey: String?

        func run() async throws {
            #if Collector
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65_535).contains(port) else {
                throw InputError("--listen \(listen): expected HOST:PORT, such as 127.0.0.1:8417")
            }
            var configuration = CollectorConfiguration()
            configuration.host = String(listen[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            configuration.port = port
            let positive: [(String, Int?, WritableKeyPath<CollectorConfiguration, Int>)] = [
                ("--max-report-bytes", maxReportBytes, \.maxReportBytes), ("--max-app-bytes", maxAppBytes, \.maxAppBytes),
                ("--uploads-per-install-per-hour", perInstall, \.uploadsPerInstallPerHour),
                ("--uploads-per-token-per-minute", perToken, \.uploadsPerTokenPerMinute), ("--request-deadline", requestDeadline, \.requestDeadlineSeconds),
                ("--requests-per-address-per-minute", perAddress, \.requestsPerAddressPerMinute),
                ("--max-concurrent-uploads", maxConcurrentUploads, \.maxConcurrentUploads),
            ]
            for (name, value, field) in positive {
                guard let value else { continue }
                guard value > 0 else { throw InputError("\(name) \(value): give a positive number") }
                configuration[keyPath: field] = value
            }
            if let retentionDays {
                guard retentionDays >= 0 else { throw InputError("--retention-days \(retentionDays): give 0 or more") }
                configuration.retentionDays = retentionDays > 0 ? retentionDays : nil
            }
            switch (tlsCertificate, tlsKey) {
            case let (certificate?, key?):
                configuration.tls = .init(certificateChain: certificate, privateKey: key)
                // Checked before the store is opened or anything listens.
                do { try Collector.checkTLS(configuration.tls!) } catch { throw InputError("--tls-certificate/--tls-key: \(error)") }
            case (nil, nil): break
            default: throw InputError("--tls-certificate and --tls-key go together: give both, or neither for plain HTTP behind a proxy")
            }
            let tokens: CollectorTokens
            do { tokens = try CollectorTokens.reading(file: self.tokens) } catch { throw InputError("--tokens \(error)") }
            guard !tokens.tokens.isEmpty else { throw InputError("--tokens \(self.tokens): no tokens; make one with `rewind collect token`") }
            let reports = try await CollectorStores.open(store, create: true)
            let collector = Collector(store: reports, tokens: tokens, configuration: configuration)
            let (host, scheme) = (configuration.host, configuration.tls == nil ? "http" : "https")
            // The store is closed once the server has stopped (its uploads in flight finished),
            // whether it stopped by a signal or failed: a PostgreSQL store's connections must be
            // closed before they go (postgres-nio traps in a debug build on one that is not, and
            // the server logs the others as cut off).
            do {
                try await collector.run { port in
                    // The line scripts and tests wait for: where to send reports.
                    // Unbuffered, so a script reading a pipe sees it at once.
                    FileHandle.standardOutput.write(Data("rewind collect: listening on \(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)\n".utf8))
                }
            } catch {
                await reports.close()
                throw error
            }
            await reports.close()
            #else
            throw InputError(
                "this rewind was built without the collector: build it with `swift build -c release --product rewind --traits defaults,Collector`"
            )
            #endif
        }
    }

    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Make a collector token: print it once, append its digest to the tokens file.",
            discussion: """
                An ingest token (--ingest APP-ID) ships inside the app: it can only upload that \
                app's reports. A read token (--read) is the team's: list, fetch, delete, revoke, \
                stop uploads. The file keeps only the token's SHA-256, so it can be read without \
                giving the tokens away; the token itself is printed once and never again.
                """
        )

        @Option(help: ArgumentHelp("The tokens file (created, owner-only, when missing).", valueName: "path")) var tokens: String
        @Option(help: "A name for the token (unique in the file): what logs and revocation call it.") var name: String
        @Option(help: ArgumentHelp("Make an ingest token for this app id.", valueName: "app-id")) var ingest: String?
        @Flag(help: "Make a read token (the team's).") var read = false

        func validate() throws {
            guard (ingest != nil) != read else { throw ValidationError("give one of --ingest APP-ID or --read") }
            guard Self.isWord(name) else { throw ValidationError("--name \(name): letters, digits, '-', '_' and '.' only") }
            if let ingest, !Self.isWord(ingest) { throw ValidationError("--ingest \(ingest): an app id of letters, digits, '-', '_' and '.'") }
        }

        func run() throws {
            #if Collector
            if FileManager.default.fileExists(atPath: tokens) {
                do {
                    if try CollectorTokens.reading(file: tokens).tokens.contains(where: { $0.name == name }) {
                        throw InputError("--name \(name): \(tokens) has a token of that name")
                    }
                } catch let error as EventLogError { throw InputError("--tokens \(error)") }
            } else {
                let descriptor = open(tokens, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { throw InputError("--tokens \(tokens): cannot create it (\(String(cString: strerror(errno))))") }
                close(descriptor)
            }
            let made = CollectorTokens.make(kind: read ? .read : .ingest, name: name, app: ingest)
            guard let handle = FileHandle(forWritingAtPath: tokens) else { throw InputError("--tokens \(tokens): cannot write it") }
            defer { try? handle.close() }
            do {
                try handle.seekToEnd()
                try handle.write(contentsOf: Data((made.line + "\n").utf8))
                try handle.synchronize()
            } catch {
                throw InputError("--tokens \(tokens): cannot write it (\(error.localizedDescription))")
            }
            print(made.secret)
            #else
            throw InputError("this rewind was built without the collector: build it with `--traits defaults,Collector`")
            #endif
        }

        static func isWord(_ text: String) -> Bool {
            !text.isEmpty && text.count <= 128 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
        }
    }
}
