// The app of the article: the shop example.
import Foundation
import RewindExamples
import Rewind

private typealias AppState = ShopState
private let appReducer = Shop.reducer
private let appEffects = Shop.effects(environment: .simulated)
private func randomAction(using random: inout SeededRandom, in state: ShopState) -> ShopAction {
    Shop.randomAction(using: &random, in: state)
}
private let id = UUID()
private let date = Date()
private let order = Order(id: id, lines: [], total: 0, placedAt: date)
