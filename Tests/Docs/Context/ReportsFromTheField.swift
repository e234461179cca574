// The shop stands for the reader's app; the key line is the one `rewind report keygen` printed.
import Foundation
import Rewind
import RewindExamples
import RewindLog

private let app = AppIdentity(id: "com.example.shop", version: "2.3")
private let teamPublicKeyLine = try! ReportKey.generate(id: "team-2026").publicKey.line
private let systemVersion = "iOS 18.2"
private func upload(_ report: Data) async throws {}
private let recorder = {
    var configuration = RecorderConfiguration<ShopState, ShopAction>()
    configuration.reports = ReportOptions(key: try! ReportKey(line: teamPublicKeyLine))
    return Recorder<ShopState, ShopAction>(log: try! EventLog(path: ":memory:"), app: app, configuration: configuration)
}()
private let note: String? = "the total went negative"
private func userAgreed(_ preview: ReportPreview) -> Bool { true }
private func userAgreesToSend(_ report: URL) async -> Bool { true }
