import Observation
import Rewind
import RewindExamples
import RewindLog

// The "Adopting Rewind in an app" recipe for a view model: the article shows these lines.

/// A SwiftUI view model that reduces on its own (`@Observable`, or an `ObservableObject` whose
/// state is `@Published`: the recording is the same).
@Observable
final class ShopModel {
    private(set) var state = ShopState()
    @ObservationIgnored private let tap: RecorderTap<ShopState, ShopAction>

    init(recorder: Recorder<ShopState, ShopAction>, state: ShopState = ShopState()) {
        self.state = state
        tap = recorder.tap(initialState: state)
    }

    func send(_ action: ShopAction, file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column) {
        let source = ActionSource(file: file, function: function, line: line, column: column)
        tap.record(action, from: source, reducing: &state) { Shop.reducer(&$0, action) }
    }
}
