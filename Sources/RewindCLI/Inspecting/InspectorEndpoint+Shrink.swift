import Foundation
import RewindInspector
import RewindLog

extension InspectorEndpoint {
    /// `GET /api/shrink?invariant=NAME` (or `where=CONDITION`): `rewind shrink`'s report, with
    /// the fixture it wrote (base64) and a Swift test that replays it, for the page to offer
    /// as downloads. The fixture is written to a temporary folder, read, and removed: the
    /// inspector writes nothing beside the log.
    static let shrink = InspectorEndpoint(options: ["invariant", "where", "session"], replays: true) { call, inspection in
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = FixtureTest.fixtureName(log: inspection.readsStore ? "store" : inspection.name, condition: call["invariant"] ?? call["where"] ?? "condition")
        let output = folder.appendingPathComponent(name).path
        let command: ShrinkCommand = try inspection.parse(call, extra: ["--output=\(output)"])
        var report = try command.report()
        guard report.found else { return try .json(encoding: Download(report: report)) }
        report.output = name
        let test = FixtureTest(fixture: name, log: inspection.shortName, invariant: call["invariant"], condition: call["where"], report: report)
        return try .json(encoding: Download(report: report, fixtureName: name, fixture: try Data(contentsOf: URL(fileURLWithPath: output)), testName: test.fileName, test: test.source))
    }

    struct Download: Encodable {
        /// `rewind shrink --json`'s report (its `output` is the fixture's file name).
        var report: ShrinkCommand.Report
        var fixtureName: String?
        /// The fixture log's bytes, base64.
        var fixture: Data?
        var testName: String?
        /// A Swift Testing test that replays the fixture.
        var test: String?
    }
}
