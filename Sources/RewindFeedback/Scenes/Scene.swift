/// A screen as an asynchronous resource: a ``Stage`` shows it, the user provides values through
/// it, and it is dismissed when its work is done or the task awaiting it is cancelled —
/// cause-logic-effect's scene, without UIKit.
///
/// A scene is a name and a description of the screen (its `content`), typed by what the user
/// provides. Rewind never looks at the content; the stage that shows the scene does, and builds
/// the screen from it:
///
/// ```swift
/// enum AccountScreen: Sendable { case enterPhone, enterCode(phone: String), newPassword }
///
/// let enterPhone = Scene<String>("EnterPhoneScene", content: AccountScreen.enterPhone)
/// let phone = try await stage.run(enterPhone, .push)   // shown, answered, dismissed
/// ```
///
/// Describing screens as data keeps flows platform-neutral and replayable: the same flow runs
/// against a UIKit or SwiftUI stage in the app and against a ``TestStage`` in tests. A stage may
/// as well accept content that builds its screen directly (a closure making a view
/// controller, cause-logic-effect's way); the "Scenes and flows" article has both recipes.
///
/// In a file that also imports SwiftUI, which has a `Scene` protocol of its own, spell this
/// type `RewindFeedback.Scene`.
public struct Scene<Value: Sendable>: Sendable {
    /// The scene's name: in the log (the `info` of what it records), in a ``TestStage``'s
    /// history and in errors.
    public var name: String
    /// What the stage builds the screen from; opaque to Rewind.
    public var content: any Sendable

    /// Creates a scene.
    ///
    /// - Parameters:
    ///   - name: A name for the log, tests and errors: `"EnterPhoneScene"`.
    ///   - content: What the stage builds the screen from; none by default.
    ///   - value: The type of value the user provides (inferred where the context says it).
    public init(_ name: String, content: any Sendable = (), providing value: Value.Type = Value.self) {
        self.name = name
        self.content = content
    }
}
