import Rewind
import RewindFeedback
import Testing
