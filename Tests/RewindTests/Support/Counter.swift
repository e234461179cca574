import Rewind

/// A tiny app for the store's own tests.
struct Counter: Codable, Equatable, Sendable {
    var count = 0
    var log: [String] = []
}

enum CounterAction: Codable, Equatable, Sendable {
    case increment
    case decrement
    case add(Int)
    case note(String)
}

let counterReducer = Reducer<Counter, CounterAction> { state, action in
    switch action {
    case .increment: state.count += 1
    case .decrement: state.count -= 1
    case let .add(amount): state.count += amount
    case let .note(text): state.log.append(text)
    }
}
