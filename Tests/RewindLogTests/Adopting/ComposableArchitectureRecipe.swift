import Rewind
import RewindExamples
import RewindLog
import Synchronization

// The "Adopting Rewind in an app" recipe for a TCA store: the article shows these lines.

/// The app's root reducer, recorded: every action the store reduces, effects' included.
struct RecordingReducer<Base: ComposableArchitecture.Reducer>: ComposableArchitecture.Reducer
where Base.State: Codable & Sendable, Base.Action: Codable & Sendable {
    let base: Base
    let tap: RecorderTap<Base.State, Base.Action>

    func reduce(into state: inout Base.State, action: Base.Action) -> ComposableArchitecture.Effect<Base.Action> {
        let source = SendSite.pending.withLock { pending in
            defer { pending = nil }
            return pending
        }
        return tap.record(action, from: source ?? ActionSource(info: "sent by an effect"), reducing: &state) { state in
            base.reduce(into: &state, action: action)
        }
    }
}

/// Where the action a view is sending comes from: set by `send(_:from:)`, taken by the reducer
/// that records the action, so that what its effects send next has none.
enum SendSite {
    static let pending = Mutex<ActionSource?>(nil)
}

extension ComposableArchitecture.Store {
    /// `send`, telling the recorder where from: `store.send(.cart(.clear), from: ActionSource())`.
    func send(_ action: Action, from source: ActionSource) {
        SendSite.pending.withLock { $0 = source }
        send(action)
    }
}
