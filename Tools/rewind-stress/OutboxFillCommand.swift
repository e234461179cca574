import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RewindLog

/// A disk that fills while a report is written to the outbox: the child process of the outbox's
/// full-disk test. A file-size limit (`RLIMIT_FSIZE`, with SIGXFSZ ignored) makes the write
/// past it fail, as a full disk's would, in this process only.
struct OutboxFillCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox-fill",
        abstract: "(for tests) Add a report of --bytes bytes to the outbox at --folder, with files limited to --file-limit bytes.",
        discussion: "Prints `added NAME` or `failed ERROR`.",
        shouldDisplay: false
    )

    @Option var folder: String
    @Option var bytes: Int
    @Option var fileLimit: Int

    func run() throws {
        signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit(rlim_cur: rlim_t(fileLimit), rlim_max: rlim_t.max)
        #if canImport(Glibc)
        setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
        #else
        setrlimit(RLIMIT_FSIZE, &limit)
        #endif
        do {
            let url = try ReportOutbox(folder: URL(fileURLWithPath: folder)).add(Data(repeating: 0x5A, count: bytes))
            print("added \(url.lastPathComponent)")
        } catch {
            print("failed \(error)")
        }
    }
}
