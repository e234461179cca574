// The app of the replay tool's doc comments: the shop example.
import RewindExamples
import RewindLog

private let appReducer = Shop.reducer
