// The app of the replay engine's doc comments: the shop example.
import RewindExamples
import RewindLog
