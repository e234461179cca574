import Foundation
import GRDB
import Rewind
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

/// A log whose recorder hit a full disk: every tool that reads it says so.
@Suite("Recorded gaps in the tools")
struct RecordedGapTests {
    @Test("check, sessions, verify and bisect report the gap; check stays sound; verify agrees")
    func toolsReportTheGap() async throws {
        let (folder, path) = try logWithRecordedGap()
        let rewind = builtProduct("rewind")

        let check = try await run(rewind, ["check", path], in: folder.path)
        #expect(check.status == 0, "a recorded gap is not damage: \(check.standardOutput)")
        #expect(check.standardOutput.contains("recorded gap: session 1 lost 5 actions after seq 20 (cart.applyDiscount ×5)"))
        #expect(check.standardOutput.contains("resumed in session 2"))
        let checkJSON = try RewindCommandTests.json(try await run(rewind, ["check", path, "--json"], in: folder.path).standardOutput)
        let gap = try #require((checkJSON["recordedGaps"] as? [[String: Any]])?.first)
        #expect((gap["lost"] as? NSNumber)?.intValue == 5)
        #expect((gap["resumedSession"] as? NSNumber)?.intValue == 2)

        let sessions = try await run(rewind, ["sessions", path], in: folder.path)
        #expect(sessions.standardOutput.contains("ended by a gap: session 1 lost 5 actions"))

        let verify = try await run(rewind, ["verify", path], in: folder.path)
        #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")
        #expect(verify.standardOutput.contains("recorded gap (not folded across): session 1 lost 5 actions"))

        let bisect = try await run(rewind, ["bisect", path, "--where", "cart.total < 0"], in: folder.path)
        #expect(bisect.status == 1)
        #expect(bisect.standardOutput.contains("recorded gap (not folded across)"))

        // Seqs stay gapless: the lost actions never got one.
        let log = try EventLog(path: path, mode: .readOnly)
        #expect(try log.seqRange() == 1...35)
        #expect(try log.sessions().map(\.seqRange) == [1...20, 21...35])
    }

    @Test("export and import keep the gap; an export whose gap names an undeclared session is refused")
    func exportKeepsTheGap() async throws {
        let (folder, path) = try logWithRecordedGap()
        let rewind = builtProduct("rewind")
        #expect(try await run(rewind, ["export", path, "--output", "gap.jsonl"], in: folder.path).status == 0)
        let imported = try await run(rewind, ["import", "gap.jsonl", "--output", "imported.rewind"], in: folder.path)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(try EventLog(path: folder.file("imported.rewind"), mode: .readOnly).gaps() == EventLog(path: path, mode: .readOnly).gaps())

        // Only session 2: the gap that ended session 1 is not part of it.
        #expect(try await run(rewind, ["export", path, "--output", "second.jsonl", "--session", "2"], in: folder.path).status == 0)
        #expect(!(try String(contentsOfFile: folder.file("second.jsonl"), encoding: .utf8).contains(#""type":"gap""#)))

        // The gap line alone names session 9.
        let lines = try String(contentsOfFile: folder.file("gap.jsonl"), encoding: .utf8).split(separator: "\n").map { line in
            line.contains(#""type":"gap""#) ? line.replacingOccurrences(of: #""session":1"#, with: #""session":9"#) : String(line)
        }
        #expect(lines.contains { $0.contains(#""session":9"#) })
        try lines.joined(separator: "\n").write(toFile: folder.file("hostile.jsonl"), atomically: true, encoding: .utf8)
        let hostile = try await run(rewind, ["import", "hostile.jsonl", "--output", "hostile.rewind"], in: folder.path)
        #expect(hostile.status == 2)
        #expect(hostile.standardError.contains("not declared before it"), "\(hostile.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("hostile.rewind")))
    }

}
