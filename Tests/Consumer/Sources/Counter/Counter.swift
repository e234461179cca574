import Foundation
import Rewind
import RewindLog

/// A counter app's state and actions: what any app of Rewind's users would have.
public struct CounterState: Codable, Equatable, Sendable {
    public var count = 0
    public init() {}
}

public enum CounterAction: Codable, Equatable, Sendable {
    case increment
    case decrement
    case reset
}

public let counterReducer = Reducer<CounterState, CounterAction> { state, action in
    switch action {
    case .increment: state.count += 1
    // The seeded bug: decrementing at zero goes negative.
    case .decrement: state.count -= 1
    case .reset: state.count = 0
    }
}

public let neverNegative = Invariant<CounterState>(name: "never-negative", description: "the count is never negative") { $0.count >= 0 }

/// The app's store, recording into the log at `path`.
public func makeStore(recordingInto path: String) throws -> (Store<CounterState, CounterAction>, Recorder<CounterState, CounterAction>) {
    let recorder = Recorder<CounterState, CounterAction>(log: try EventLog(path: path), app: AppIdentity(id: "com.example.counter", version: "1.0"))
    let store = Store(initialState: CounterState(), reducer: counterReducer, middleware: recorder.middleware)
    return (store, recorder)
}
