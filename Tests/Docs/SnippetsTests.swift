import Foundation
import Testing

/// The snippets this target compiles are the docs' own: Generated/ is what Tools/snippets.py
/// makes of the README, the DocC articles and the doc comments in Sources today.
@Suite("documentation snippets")
struct SnippetsTests {
    @Test("every swift block of the README, the articles and the doc comments is in Generated/, as the docs have it now")
    func upToDate() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("Tools/snippets.py").path, "--check"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)")
    }
}
