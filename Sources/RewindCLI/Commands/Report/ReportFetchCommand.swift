import ArgumentParser
import Foundation
import RewindLog

/// `rewind report fetch STORE ID --output FILE`: one report of a collector's store, as a file.
struct ReportFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Write one report of a collector's store to a file, exactly as it was uploaded.",
        discussion: """
            STORE is what `rewind collect --store` names (a SQLite file or a postgres:// URL); ID is a report's number there, as \
            `rewind reports STORE` names it (STORE#ID). The file is then read as any report: \
            `rewind report show`, or any command with --key-file.
            """
    )

    @Argument(help: "The collector's store.") var store: String
    @Argument(help: "The report's id in it.") var id: Int64
    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the report (never overwritten).", valueName: "file")) var output: String

    func run() async throws {
        let (found, name) = try await CollectorStores.fetch(store, id: id)
        guard let bytes = found else { throw InputError("\(name): no report \(id)") }
        // Exclusive and owner-only: a report holds a user's history once opened.
        let descriptor = open(output, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw InputError("--output \(output): " + (errno == EEXIST ? "the file exists; Rewind never overwrites a report" : String(cString: strerror(errno))))
        }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced else {
            unlink(output)
            throw InputError("--output \(output): could not write the whole report")
        }
        print("wrote report \(id) (\(bytes.count) bytes) to \(output)")
    }
}
