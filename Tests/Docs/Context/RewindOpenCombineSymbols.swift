// The screens of the publisher doc comments: the shop example's store, a stopwatch, a button
// and a label as UIKit would give them.
import Foundation
import OpenCombine
import Rewind
import RewindExamples
import RewindFeedback

private let store = Store(initialState: ShopState(), reducer: Shop.reducer)
private struct Stopwatch: Sendable {
    enum Event: Sendable { case tick }
    var isRunning = false
}
private struct Clock: Sendable {
    var ticks: AnyPublisher<Date, Never> { Empty().eraseToAnyPublisher() }
}
private let clock = Clock()
private final class Button { let taps = PassthroughSubject<Void, Never>() }
private final class Label { var text = "" }
nonisolated(unsafe) private let reloadButton = Button()
nonisolated(unsafe) private let totalLabel = Label()
nonisolated(unsafe) private var cancellables = Set<AnyCancellable>()
