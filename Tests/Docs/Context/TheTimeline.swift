// The README's counter, and a second feature built as it is.
import Rewind

private struct Counter: Codable, Equatable, Sendable { var count = 0 }
private enum CounterAction: Codable, Equatable, Sendable { case increment, add(Int), reset }
private let counterReducer = Reducer<Counter, CounterAction> { state, action in
    switch action {
    case .increment: state.count += 1
    case let .add(amount): state.count += amount
    case .reset: state.count = 0
    }
}
private struct Settings: Sendable { var sound = true }
private enum SettingsAction: Sendable { case toggleSound }
private let settingsReducer = Reducer<Settings, SettingsAction> { settings, _ in settings.sound.toggle() }
