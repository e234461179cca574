import ArgumentParser
import Foundation
import Rewind
import RewindLog

/// A writer that brings a new binary symbol with every action: the other process of the test
/// that two writers, one of them on a full disk, never commit one symbol number under two names.
struct KeyedWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyed-writer",
        abstract: "(for tests) Append actions whose keys are new binary symbols, one transaction each.",
        shouldDisplay: false
    )

    @Option var log: String
    @Option(help: "Each action is [\"<prefix>-<n>\": n].") var prefix: String
    @Option var count: Int

    func run() throws {
        let eventLog = try EventLog(path: log)
        let session = try eventLog.beginSession(app: AppIdentity(id: "com.example.stress.\(prefix)"), codec: BinaryPayloadCodec(), initialState: 0)
        for n in 0..<count {
            try eventLog.append([EventRecord(["\(prefix)-\(n)": n], source: ActionSource())], to: session)
        }
        try eventLog.close()
        print("session \(session.id) wrote \(count)")
    }
}
