import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay
import RewindTestSupport
import Testing

/// A store is whatever answers the reading protocol as the SQLite file does: the in-memory
/// store (`MemoryLog`, written on RewindLogCore alone) holding the same sessions answers every
/// read the same, edges and errors included. Its recording half runs in the suite over every
/// destination (`RecordingDestinationTests`).
@Suite("Store conformance")
struct StoreConformanceTests {
    @Test("a store written on the core alone answers every read as the file it holds the sessions of")
    func memoryAnswersAsFile() async throws {
        let folder = try TemporaryDirectory()
        let device = try await LogReaderAnswers.deviceLog(in: folder)
        let memory = try MemoryLog(copying: device)
        let (file, copied) = (try LogReaderAnswers.of(device), try LogReaderAnswers.of(memory))
        #expect(file.count == copied.count)
        for (line, answer) in zip(file, copied) {
            #expect(answer.replacingOccurrences(of: memory.path, with: device.path) == line)
        }
        #expect(try memory.storedSymbols() == device.storedSymbols() && !(try memory.storedSymbols()).isEmpty)
        #expect(try memory.checkIntegrity().isSound)
    }

    @Test("what reads on the protocol works on it: replay, restore, export and import")
    func builtOnTheProtocol() async throws {
        let folder = try TemporaryDirectory()
        let device = try await LogReaderAnswers.deviceLog(in: folder)
        let memory = try MemoryLog(copying: device)
        let fromFile = Replayer(log: device, reducer: Todo.reducer), fromMemory = Replayer(log: memory, reducer: Todo.reducer)
        for session in try device.sessions() {
            #expect(try fromMemory.finalState(session: session.id, fromStart: true) == fromFile.finalState(session: session.id))
            #expect(try fromMemory.verify(session: session.id).divergence == nil)
        }
        let app = AppIdentity(id: "com.example.todo", version: "2.3")
        #expect(try memory.restoredState(app: app, reducer: Todo.reducer) == device.restoredState(app: app, reducer: Todo.reducer))

        // Exported from memory and imported into a file: the file's own answers come back.
        let export = URL(fileURLWithPath: folder.file("memory.jsonl"))
        #expect(try memory.export(to: export) == 195)
        try EventLog.importLog(from: export, to: folder.file("imported.rewind")).close()
        let imported = try EventLog(path: folder.file("imported.rewind"), mode: .readOnly)
        #expect(try imported.sessions().map(\.eventCount) == device.sessions().map(\.eventCount))
        #expect(try Replayer(log: imported, reducer: Todo.reducer).finalState(session: 3) == fromFile.finalState(session: 3))
    }
}
