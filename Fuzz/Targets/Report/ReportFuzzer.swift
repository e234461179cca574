import Foundation
import FuzzDriver
import RewindLog

/// libFuzzer's entry: a report, as anyone holding an app's public key can make one. Two halves,
/// by the input's first byte:
///
/// - the bytes of a report file (every field of its layout, then the seal), read and opened
///   with the fuzz key, and read as a log when it opens;
/// - after a first byte of 0xFF, the content a report seals (its `report` line, then an
///   export), sealed to the fuzz key and opened as a log: what gets past authentication.
@_cdecl("fuzz_report_main")
func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(reportFuzzer, argc: argc, argv: argv)
}

/// One input.
func reportFuzzer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    var bytes = Data(bytes: data, count: size)
    if bytes.first == 0xFF {
        bytes = sealed(content: bytes.dropFirst())
    }
    let path = folder + "/input.rwreport"
    guard (try? bytes.write(to: URL(fileURLWithPath: path))) != nil else { return 0 }
    _ = try? FieldReport(bytes: bytes, path: path).header
    if let (log, _) = try? EventLog.openingReport(at: path, keys: keys) {
        _ = try? log.sessions()
        _ = try? log.seqRange()
        try? log.close()
    }
    return 0
}

/// `content` sealed to the fuzz key, as a report file, whatever the content is.
private func sealed(content: Data) -> Data {
    let newline = content.firstIndex(of: 0x0A) ?? content.endIndex
    let details = (try? JSONDecoder().decode(ReportDetails.self, from: content[..<newline]))
        ?? ReportDetails(reason: ReportReason(kind: .manual), session: 1)
    let export = newline < content.endIndex ? Data(content[(newline + 1)...]) : Data()
    let header = ReportHeader(keyID: "fuzz", app: AppIdentity(id: "com.example.fuzz"), reason: details.reason, createdAt: 0)
    return (try? FieldReport.seal(header: header, details: details, export: export, to: publicKey)) ?? Data()
}

// A key made for the fuzzer with `rewind report keygen --id fuzz` (it guards nothing): the seed
// corpus's report is sealed to it.
private let publicKey = try! ReportKey(line: "fuzz n3xTRM/seDgS1EeHslLeMC4TR4JiccaFiC6Ge1/WLCA=")
private let keys = try! LogKeys.reading(keyFile: "fuzz APXKJJkuC3mJgP0zkl0nDHixfaINZkIZLuLm7H4cJ3A=")

private let folder: String = {
    let path = NSTemporaryDirectory() + "rewind-fuzz-report-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()
