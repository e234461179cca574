// The shop stands for the reader's app: its recorder with reports on, and the key line and the
// ingest token the team gave it.
import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindUpload

private let teamPublicKeyLine = try! ReportKey.generate(id: "team-2026").publicKey.line
private let logPath = NSTemporaryDirectory() + "shop.rewind"
private let recorder = {
    var configuration = RecorderConfiguration<ShopState, ShopAction>()
    configuration.reports = ReportOptions(key: try! ReportKey(line: teamPublicKeyLine))
    return Recorder<ShopState, ShopAction>(log: try! EventLog(path: logPath), app: AppIdentity(id: "com.example.shop", version: "2.3"), configuration: configuration)
}()
private func userAgreesToSend(_ report: URL) async -> Bool { true }
private let uploader = ReportUploader(outbox: ReportOutbox(besideLog: logPath), endpoint: URL(string: "https://reports.example.com")!, token: "rwi_")
