import Rewind
import RewindExamples
import RewindLog

// The "Adopting Rewind in an app" recipe for a SwiftRex store: the article shows these lines.

/// Records every action the store reduces, with SwiftRex's own record of where it came from.
final class RecordingMiddleware: SwiftRex.Middleware {
    typealias InputActionType = ShopAction
    typealias OutputActionType = ShopAction
    typealias StateType = ShopState

    private let recorder: Recorder<ShopState, ShopAction>
    private var getState: SwiftRex.GetState<ShopState>?
    private var tap: RecorderTap<ShopState, ShopAction>?

    init(recorder: Recorder<ShopState, ShopAction>) {
        self.recorder = recorder
    }

    func receiveContext(getState: @escaping SwiftRex.GetState<ShopState>, output: SwiftRex.AnyActionHandler<ShopAction>) {
        self.getState = getState
        tap = recorder.tap(initialState: getState())
    }

    func handle(action: ShopAction, from dispatcher: SwiftRex.ActionSource, afterReducer: inout SwiftRex.AfterReducer) {
        guard let getState, let tap else { return }
        let source = ActionSource(file: dispatcher.file, function: dispatcher.function, line: dispatcher.line, column: 0, info: dispatcher.info)
        tap.willReduce(action, from: source, state: getState())
        afterReducer = .do {
            tap.didReduce(action, from: source, state: getState())
        }
    }
}
