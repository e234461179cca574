#if Collector
import Foundation
import Rewind
import RewindLog
import RewindTestSupport
@testable import RewindUpload
import Testing

/// The uploader's own promises, against a real `rewind collect`: consent, the daily budget,
/// refusals for good, a wrong token, and what it keeps across launches.
@Suite("Report uploader", .serialized)
struct UploaderTests {
    @Test("a report held for consent is not sent; granted, it goes")
    func consent() async throws {
        let team = try await CollectorTeam()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile)
        let outbox = try await team.device("phone")
        // The app asked first: the report waits, held.
        let ready = try #require(outbox.reports().first)
        let held = URL(fileURLWithPath: ready.path + ".held")
        try FileManager.default.moveItem(at: ready, to: held)
        #expect(outbox.reports().isEmpty && outbox.heldReports() == [held])
        let uploader = ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest)
        let before = await uploader.send()
        #expect(before.delivered == 0 && outbox.heldReports().count == 1)
        #expect(try await ReportStore(path: team.store).allReports().isEmpty)
        try outbox.grant(held)
        #expect(await uploader.send().delivered == 1)
        #expect(try await ReportStore(path: team.store).allReports().count == 1)
    }

    @Test("the daily budget: past it the rest wait for the next day (UTC), then go")
    func budget() async throws {
        let team = try await CollectorTeam()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile)
        let outbox = try await team.device("phone", errors: 3)
        let size = try Data(contentsOf: try #require(outbox.reports().first)).count
        var configuration = ReportUploader.Configuration()
        configuration.dailyByteBudget = size * 2 + size / 2  // two reports a day
        let uploader = ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest, configuration: configuration)
        let now = Date(timeIntervalSince1970: 1_800_000_000)  // a UTC day's middle is not needed: any time
        let first = await uploader.send(now: now)
        #expect(first.delivered == 2 && first.remaining == 1, "\(first)")
        let nextDay = (now.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400 + 86_400
        #expect(first.nextAttempt == Date(timeIntervalSince1970: nextDay))
        // The same day, relaunched: still nothing (the spending is kept in the outbox).
        let relaunched = ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest, configuration: configuration)
        #expect(await relaunched.send(now: now.addingTimeInterval(60)).delivered == 0)
        #expect(await relaunched.send(now: Date(timeIntervalSince1970: nextDay + 1)).delivered == 1)
    }

    @Test("a report the collector refuses for good is deleted and counted; a wrong token keeps every report")
    func refusals() async throws {
        let team = try await CollectorTeam()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile, extra: ["--max-report-bytes", "100"])
        let outbox = try await team.device("phone", errors: 2)
        let wrong = await ReportUploader(outbox: outbox, endpoint: collector.url, token: "rwi_wrong").send()
        #expect(wrong.delivered == 0 && wrong.remaining == 2 && wrong.lastFailure?.contains("401") == true, "\(wrong)")
        let uploader = ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest)
        let result = await uploader.send(now: Date().addingTimeInterval(86_400))
        #expect(result.refused.count == 2 && result.refused.allSatisfy { $0.contains("413") } && result.remaining == 0, "\(result)")
        #expect(uploader.refusedCount == 2 && outbox.reports().isEmpty)
    }

    @Test("the install id is made once and kept; waits grow exponentially, jittered, within the bounds")
    func installAndBackoff() async throws {
        let folder = try TemporaryDirectory()
        let outbox = ReportOutbox(folder: URL(fileURLWithPath: folder.file("outbox")))
        let endpoint = URL(string: "http://127.0.0.1:9")!
        let first = ReportUploader(outbox: outbox, endpoint: endpoint, token: "t").installID
        #expect(!first.isEmpty && ReportUploader(outbox: outbox, endpoint: endpoint, token: "t").installID == first)
        #expect(ReportUploader(outbox: ReportOutbox(folder: URL(fileURLWithPath: folder.file("other"))), endpoint: endpoint, token: "t").installID != first)
        let uploader = ReportUploader(outbox: outbox, endpoint: endpoint, token: "t")
        for failures in 1...12 {
            let bound = min(6 * 3600, 30 * pow(2, Double(failures - 1)))
            let waits = (0..<50).map { _ in uploader.backoff(failures: failures) }
            #expect(waits.allSatisfy { $0 >= bound / 2 && $0 <= bound }, "failures \(failures): \(waits.min()!)…\(waits.max()!) outside \(bound / 2)…\(bound)")
            #expect(Set(waits).count > 1, "jittered")
        }
    }
}
#endif
