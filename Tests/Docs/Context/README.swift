// The README's second feature, built as Counter is.
import Rewind

private struct Settings: Sendable { var sound = true }
private enum SettingsAction: Sendable { case toggleSound }
private let settingsReducer = Reducer<Settings, SettingsAction> { settings, _ in settings.sound.toggle() }
