import ArgumentParser

/// `rewind apps`: the apps this tool can replay.
struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the apps this tool can replay, with their invariants."
    )

    @OptionGroup var format: OutputFormat

    func run() throws {
        try format.print(Report(apps: AppRegistry.apps.map { app in
            App(id: app.id, invariants: Invariant.all(of: app))
        }))
    }
}

extension AppsCommand {
    struct App: Encodable {
        var id: String
        var invariants: [Invariant]
    }

    struct Invariant: Encodable {
        var name: String
        var description: String

        /// The invariants `app` registers, in order.
        static func all(of app: ReplayableApp) -> [Invariant] {
            app.invariants.map { Invariant(name: $0.name, description: $0.description) }
        }
    }

    /// The registered apps; encoded as a bare array.
    struct Report: CommandReport {
        var apps: [App]

        func encode(to encoder: any Encoder) throws {
            try apps.encode(to: encoder)
        }

        var text: String {
            guard !apps.isEmpty else { return "no apps registered" }
            return apps.map { app in
                ([app.id] + app.invariants.map { "  --invariant \($0.name): \($0.description)" }).joined(separator: "\n")
            }.joined(separator: "\n")
        }
    }
}
