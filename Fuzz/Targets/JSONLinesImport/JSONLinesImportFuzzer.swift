import Foundation
import FuzzDriver
import RewindLog

/// libFuzzer's entry: `EventLog.importLog` on arbitrary bytes as an export (JSON Lines). Each
/// input is written to a file and imported into a new log, which is then removed.
@_cdecl("fuzz_jsonl_import_main")
func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(jsonLinesImportFuzzer, argc: argc, argv: argv)
}

/// One input.
func jsonLinesImportFuzzer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let input = URL(fileURLWithPath: folder + "/input.jsonl")
    let output = folder + "/imported.rewind"
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: output + suffix) }
    guard (try? Data(bytes: data, count: size).write(to: input)) != nil else { return 0 }
    if let log = try? EventLog.importLog(from: input, to: output) {
        _ = try? log.sessions()
        try? log.close()
    }
    return 0
}

private let folder: String = {
    let path = NSTemporaryDirectory() + "rewind-fuzz-import-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()
