/// Why a ``TestStage`` could not do what a test asked.
public enum TestStageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The scene was not presented within the stage's timeout.
    case notPresented(scene: String, onStage: [String], history: [TestStage.Step])
    /// The scene provides another type of value.
    case wrongType(scene: String, expected: String, given: String)
    /// The scene no longer takes values: it finished.
    case alreadyEnded(scene: String)

    public var description: String {
        switch self {
        case .notPresented(let scene, let onStage, let history):
            let current = onStage.isEmpty ? "nothing" : onStage.joined(separator: ", ")
            let past = history.isEmpty ? "nothing yet" : history.map(\.description).joined(separator: ", ")
            return "\(scene) was not presented in time; on stage: \(current); history: \(past)"
        case .wrongType(let scene, let expected, let given):
            return "\(scene) provides \(expected), not \(given)"
        case .alreadyEnded(let scene):
            return "\(scene) no longer takes values: it finished"
        }
    }
}
