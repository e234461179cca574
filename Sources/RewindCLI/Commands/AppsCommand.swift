import ArgumentParser

/// `rewind apps`: the apps this tool can replay.
struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the apps this tool can replay, with their invariants."
    )

    func run() {
        for app in AppRegistry.apps {
            print(app.id)
            for invariant in app.invariants { print("  --invariant \(invariant.name): \(invariant.description)") }
        }
    }
}
