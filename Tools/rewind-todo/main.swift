// An app's own replay tool, in full: register the app, get every rewind subcommand for its logs.
import RewindCLI
import RewindExamples

await RewindTool.main(apps: [ReplayableApp(id: "com.example.todo", reducer: Todo.reducer)])
