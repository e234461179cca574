import Synchronization

/// One showing of a scene on a ``Stage``: what the stage is asked to present, and later to
/// dismiss.
///
/// Every presentation has an id of its own, unique in the process, so a stage can keep its
/// screens in a dictionary keyed by presentation and find the one ``Stage/dismiss(_:)`` names;
/// being `Identifiable`, it can drive SwiftUI's `sheet(item:)` and a `NavigationStack` path.
public struct Presentation: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Unique among the presentations of this process.
    public let id: UInt64
    /// The scene's ``Scene/name``.
    public let scene: String
    /// How the scene is placed.
    public let placement: ScenePlacement

    /// Creates a presentation with a new id. ``Flow`` makes them; a stage or a test of one may too.
    ///
    /// - Parameters:
    ///   - scene: The scene's name.
    ///   - placement: How the scene is placed.
    public init(scene: String, placement: ScenePlacement) {
        self.id = Self.nextID.add(1, ordering: .relaxed).oldValue
        self.scene = scene
        self.placement = placement
    }

    private static let nextID = Atomic<UInt64>(1)

    /// `EnterPhoneScene (push #3)`.
    public var description: String {
        "\(scene) (\(placement.rawValue) #\(id))"
    }
}
