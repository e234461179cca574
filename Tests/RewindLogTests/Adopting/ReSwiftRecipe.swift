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
                guard let recorded = action as? ShopAction, let before = getState() else { return next(action) }
                next(action)
                if let after = getState() {
                    tap.record(recorded, from: ActionSource(info: "ReSwift"), before: before, after: after)
                }
            }
        }
    }
}
