// The app of the replay engine's doc comments: the shop example.
import RewindExamples
import RewindLog
#if canImport(SwiftUI)
import SwiftUI
private let appReducer = Shop.reducer
private struct CartView: View {
    let store: Store<ShopState, ShopAction>
    var body: some View { EmptyView() }
}
#endif

/// The reducer of the app's last release, kept to compare against.
private let releasedReducer = Shop.reducer
