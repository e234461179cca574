// The rewind tool: every RewindCLI subcommand, for the bundled example apps, plus `demo`.
import RewindCLI

await RewindTool.main(apps: ExampleApps.all, extraCommands: [DemoCommand.self])
