// SwiftRex's counter, with a favourite-number service as the injected dependency.
import Rewind

private struct AppState: Equatable, Sendable {
    var count = 0
    var favourite: Int?
}

private enum AppAction: Equatable, Sendable {
    case increment, decrement, fetchFavourite, favouriteLoaded(Int), stopTicking
}

private class FavouriteService: @unchecked Sendable {
    func favourite() async -> Int { 0 }
}

private final class LiveFavouriteService: FavouriteService, @unchecked Sendable {
    override func favourite() async -> Int { 42 }
}

private let appReducer = Reducer<AppState, AppAction> { state, action in
    switch action {
    case .increment: state.count += 1
    case .decrement: state.count -= 1
    case let .favouriteLoaded(number): state.favourite = number
    case .fetchFavourite, .stopTicking: break
    }
}
