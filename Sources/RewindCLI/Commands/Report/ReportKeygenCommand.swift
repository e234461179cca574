import ArgumentParser
import Foundation
import RewindLog

/// `rewind report keygen --id ID --output FILE`: the team's key pair.
struct ReportKeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make the team's key pair: the private key for --key-file, the public key for the app.",
        discussion: """
            Writes the private key to FILE (a key file line, readable by its owner only) and the public key \
            line to FILE.pub. The app seals reports with the public key (ReportKey(line:)); keep the private \
            key where the team reads reports: without it no report sealed to it can be read.
            """
    )

    @Option(help: ArgumentHelp("The key's id, named by every report sealed to it (e.g. team-2026).", valueName: "id")) var id: String
    @Option(name: .shortAndLong, help: "The private key file to write (must not exist).") var output: String
    @OptionGroup var format: OutputFormat

    func run() throws {
        let pair: (publicKey: ReportKey, privateKey: LogKey)
        do { pair = try ReportKey.generate(id: id) } catch { throw InputError("--id \(id): \(error.reason)") }
        let publicPath = output + ".pub"
        try Self.createExclusively(output, data: Data((pair.privateKey.keyFileLine + "\n").utf8), mode: 0o600, what: "the key")
        do {
            try Self.createExclusively(publicPath, data: Data((pair.publicKey.line + "\n").utf8), mode: 0o644, what: "the key")
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        }
        try format.print(Report(id: id, privateKeyFile: output, publicKeyFile: publicPath, publicKey: pair.publicKey.line))
    }

    /// Writes a new file, refusing one that exists (a key or a report is never overwritten).
    static func createExclusively(_ path: String, data: Data, mode: Int, what: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else {
            throw InputError("\(path): \(errno == EEXIST ? "the file exists already; \(what) is written to a new file only" : String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw InputError("\(path): cannot write \(what) (\(error.localizedDescription))")
        }
    }
}

extension ReportKeygenCommand {
    /// The key pair written.
    struct Report: CommandReport {
        var id: String
        var privateKeyFile: String
        var publicKeyFile: String
        /// The public key line, `ID BASE64`, for the app.
        var publicKey: String

        var text: String {
            """
            private key '\(id)' written to \(privateKeyFile) (keep it: it reads every report sealed to it)
            public key, for the app (ReportKey(line:)), written to \(publicKeyFile):
            \(publicKey)
            """
        }
    }
}
