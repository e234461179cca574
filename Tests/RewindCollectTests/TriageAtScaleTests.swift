import Foundation
import Rewind
import RewindLog
import RewindTestSupport
import Testing

/// Triage of a fleet's pile: 1,000 reports of 20 seeded bugs, from 3 app versions, in a
/// collector's store, grouped by `rewind reports` (the built binary) into exactly the 20 bugs
/// with the right counts and versions.
@Suite("Triage at scale")
struct TriageAtScaleTests {
    /// Bug `index`: what its reports have in their clear headers.
    static func header(bug index: Int, version: String, at time: Double) -> ReportHeader {
        let reasons = [ReportReason(kind: .crash, name: "SIGSEGV"), ReportReason(kind: .invariant, name: "non-negative-total"),
                       ReportReason(kind: .errorAction, name: "payment.failed"), ReportReason(kind: .hang, name: "sync.pull")]
        return ReportHeader(
            keyID: "team", app: AppIdentity(id: "com.example.shop", version: version), reason: reasons[index % reasons.count],
            triggerAction: "cart.case\(index / reasons.count)",
            triggerSource: ActionSource(file: "Shop/Screen\(index).swift", function: "tap()", line: UInt(10 + index)),
            createdAt: time
        )
    }

    @Test("1,000 reports of 20 bugs in 3 versions group into exactly 20 signatures, with the right counts and versions")
    func twentyBugs() async throws {
        let folder = try TemporaryDirectory()
        let keys = try ReportKey.generate(id: "team")
        let store = try ReportStore(path: folder.file("reports.sqlite"), create: true)
        let versions = ["1.0", "1.1", "2.0"]
        // A seeded spread: bug b gets 20 + 10·(b mod 5) reports in the first 980, then the rest to bug 0.
        var generator = SystemRandomNumberGenerator()
        var expected: [Int: [String: Int]] = [:]
        var plan: [Int] = []
        for bug in 0..<20 { plan += Array(repeating: bug, count: 20 + 10 * (bug % 5)) }
        plan += Array(repeating: 0, count: 1000 - plan.count)
        plan.shuffle(using: &generator)
        for (index, bug) in plan.enumerated() {
            let version = versions[(index + bug) % versions.count]
            expected[bug, default: [:]][version, default: 0] += 1
            let header = Self.header(bug: bug, version: version, at: 1_800_000_000 + Double(index))
            let details = ReportDetails(reason: header.reason, session: 1, keptEvents: 0)
            let sealed = try FieldReport.seal(header: header, details: details, export: Data(), to: keys.publicKey)
            let receipt = try await store.receive(sealed, header: header, idempotencyKey: ReportDigest.hex(of: sealed), install: "i\(index % 97)", token: "app", receivedAt: Date())
            guard case .stored = receipt else { Issue.record("report \(index) not stored: \(receipt)"); return }
        }
        await store.close()
        let triage = try await run(builtProduct("rewind"), ["reports", folder.file("reports.sqlite"), "--json"], timeout: 300)
        #expect(triage.status == 0, "\(triage.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(triage.standardOutput.utf8)) as? [String: Any])
        let groups = try #require(report["groups"] as? [[String: Any]])
        #expect(groups.count == 20)
        #expect((report["unreadable"] as? [Any])?.isEmpty == true)
        for bug in 0..<20 {
            let source = "Shop/Screen\(bug).swift:\(10 + bug)"
            let group = groups.first { ($0["signature"] as? [String: Any])?["triggerSource"] as? String == source }
            #expect(group?["count"] as? Int == expected[bug]?.values.reduce(0, +), "bug \(bug)")
            #expect(group?["versions"] as? [String: Int] == expected[bug], "bug \(bug)'s versions")
        }
    }
}
