import RewindExamples
import RewindLog
import Rewind

/// The reducer of the app's last release, kept to compare against.
private let releasedReducer = Shop.reducer
