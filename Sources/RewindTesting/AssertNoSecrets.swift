import Foundation
public import RewindLog

/// Fails the test when the log holds one of the `planted` strings, or anything that looks like
/// a secret (`SecretScan`: bearer tokens, JSON Web Tokens, card numbers, email addresses), in
/// any payload, state, note or session info of any of its sessions: proof that the app's
/// redaction keeps its secrets off the log — and so out of every export and report made from it.
///
/// Record a session whose actions and state carry a secret planted by the test, with the app's
/// own `Redaction`, then assert:
///
/// ```swift
/// @Test func tokensNeverReachTheLog() throws {
///     let log = try EventLog(path: path)
///     var configuration = RecorderConfiguration<AppState, AppAction>()
///     configuration.redaction = appRedaction
///     let recorder = Recorder<AppState, AppAction>(log: log, app: app, configuration: configuration)
///     let store = Store(initialState: AppState(), reducer: appReducer, middleware: recorder.middleware)
///     store.dispatch(.signedIn(token: "tok_PLANTED_4242"))
///     try recorder.close()
///     assertNoSecrets(in: log, planted: ["tok_PLANTED_4242"])
/// }
/// ```
///
/// A session encrypted at rest is read as stored: its payloads have nothing to find, so assert
/// on a log recorded in the clear.
///
/// - Parameters:
///   - log: The log to search.
///   - planted: Strings the test put into actions or state, found wherever they are, as they
///     are (in the text of a JSON payload, in the bytes of a binary one).
///   - allowing: Kinds of finding the app expects in its logs (its own users' email addresses,
///     say) and does not fail on; planted strings always fail.
///   - fileID: Where a failure is reported (the caller's by default).
///   - filePath: Where a failure is reported (the caller's by default).
///   - line: Where a failure is reported (the caller's by default).
///   - column: Where a failure is reported (the caller's by default).
/// - Returns: What was found (empty when the test passes).
@discardableResult
public func assertNoSecrets(
    in log: some LogReader,
    planted: [String],
    allowing: Set<SecretFinding.Kind> = [],
    fileID: StaticString = #fileID,
    file filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) -> [SecretFinding] {
    let export = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-secrets-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: export) }
    let content: Data
    do {
        try log.export(to: export)
        content = try Data(contentsOf: export)
    } catch {
        reportIssue("assertNoSecrets could not read \(log.path): \(error)", fileID: fileID, filePath: filePath, line: line, column: column)
        return []
    }
    let findings = SecretScan.findings(in: content, planted: planted).filter { $0.kind == .planted || !allowing.contains($0.kind) }
    for finding in findings {
        reportIssue("\(log.path) holds a secret: \(finding)", fileID: fileID, filePath: filePath, line: line, column: column)
    }
    return findings
}
