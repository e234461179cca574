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
    @Option(help: "Each action has one field, named <prefix>-<n>, holding n.") var prefix: String
    @Option var count: Int

    func run() throws {
        let eventLog = try EventLog(path: log)
        let session = try eventLog.beginSession(app: AppIdentity(id: "com.example.stress.\(prefix)"), codec: BinaryPayloadCodec(), initialState: 0)
        for n in 0..<count {
            try eventLog.append([EventRecord(NamedField(name: "\(prefix)-\(n)", value: n), source: ActionSource())], to: session)
        }
        try eventLog.close()
        print("session \(session.id) wrote \(count)")
    }
}

/// An action with one field whose name is chosen at run time, so each is a new binary symbol
/// (a dictionary's keys would be written inline instead).
struct NamedField: Encodable, Sendable {
    var name: String
    var value: Int

    private struct Name: CodingKey {
        var stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        try container.encode(value, forKey: Name(stringValue: name))
    }
}
