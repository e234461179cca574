import Counter
import RewindCLI

await RewindTool.main(apps: [
    ReplayableApp(id: "com.example.counter", reducer: counterReducer, invariants: [neverNegative]),
])
