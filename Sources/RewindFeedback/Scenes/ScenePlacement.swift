/// How a ``Stage`` places a scene — cause-logic-effect's `presentScene`, `pushScene` and
/// `showScene`.
public enum ScenePlacement: String, Sendable, Hashable, Codable, CaseIterable {
    /// Over what is on screen, modally (UIKit's `present(_:animated:)`, SwiftUI's `sheet`).
    case present
    /// Onto a navigation stack (UIKit's `pushViewController(_:animated:)`, SwiftUI's
    /// `NavigationStack` path).
    case push
    /// Wherever the stage's layout shows a new screen (UIKit's `show(_:sender:)`): pushed in a
    /// navigation stack, presented otherwise.
    case show
}
