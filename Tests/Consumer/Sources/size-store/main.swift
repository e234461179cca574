// The baseline's app on Rewind's store: what `Rewind` alone adds.
import Foundation
import Rewind

struct State: Codable, Sendable { var count = 0 }
enum Action: Codable, Sendable { case increment, reset }

let store = Store(initialState: State(), reducer: Reducer<State, Action> { state, action in
    switch action {
    case .increment: state.count += 1
    case .reset: state.count = 0
    }
})
for action in [Action.increment, .increment, .reset] { store.dispatch(action) }
print(String(decoding: try JSONEncoder().encode(store.state), as: UTF8.self))
