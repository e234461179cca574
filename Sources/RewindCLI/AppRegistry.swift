import ArgumentParser

/// The apps and extra subcommands registered by ``RewindTool/main(apps:extraCommands:)``.
enum AppRegistry {
    // Written once by `RewindTool.main` before any command is parsed, then only read: there
    // is no concurrent access to guard.
    nonisolated(unsafe) private(set) static var apps: [ReplayableApp] = []
    nonisolated(unsafe) private(set) static var extraCommands: [any ParsableCommand.Type] = []

    static func register(apps: [ReplayableApp], extraCommands: [any ParsableCommand.Type]) {
        self.apps = apps
        self.extraCommands = extraCommands
    }

    static func app(id: String) -> ReplayableApp? {
        apps.first { $0.id == id }
    }
}
