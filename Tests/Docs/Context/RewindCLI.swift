import Rewind
import RewindCLI

private let appReducer = Reducer<Int, Int> { state, action in state += action }
