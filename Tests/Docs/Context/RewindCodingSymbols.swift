// The app of the coding module's doc comments: the shop example.
import RewindExamples
