import Rewind
import RewindExamples
import RewindLog

// The "Adopting Rewind in an app" recipe for a ReSwift store: the article shows these lines.

extension ShopAction: ReSwift.Action {}
extension ShopState: ReSwift.StateType {}

/// A middleware that records the app's actions once the reducer has run.
func recording(into recorder: Recorder<ShopState, ShopAction>, initialState: ShopState) -> ReSwift.Middleware<ShopState> {
    let tap = recorder.tap(initialState: initialState)
    return { _, getState in
        { next in
            { action in
                guard let recorded = action as? ShopAction else { return next(action) }
                let source = ActionSource(info: "ReSwift")
                if let state = getState() {
                    tap.willReduce(recorded, from: source, state: state)
                }
                next(action)
                if let state = getState() {
                    tap.didReduce(recorded, from: source, state: state)
                }
            }
        }
    }
}
