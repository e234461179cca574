// The app of the coding module's doc comments: the shop example, whose types the macro marks.
import RewindCoding
import RewindExamples
