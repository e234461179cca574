// The baseline's app on Rewind's store, recording into a log: what `Rewind` and `RewindLog` add.
import Foundation
import Rewind
import RewindLog

struct State: Codable, Sendable { var count = 0 }
enum Action: Codable, Sendable { case increment, reset }

let path = FileManager.default.temporaryDirectory.appendingPathComponent("size-\(getpid()).rewind").path
defer { try? FileManager.default.removeItem(atPath: path) }
let recorder = Recorder<State, Action>(log: try EventLog(path: path), app: AppIdentity(id: "size"))
let store = Store(initialState: State(), reducer: Reducer<State, Action> { state, action in
    switch action {
    case .increment: state.count += 1
    case .reset: state.count = 0
    }
}, middleware: recorder.middleware)
for action in [Action.increment, .increment, .reset] { store.dispatch(action) }
try recorder.close()
print(String(decoding: try JSONEncoder().encode(store.state), as: UTF8.self))
