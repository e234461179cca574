
/// An action that names its own case path for the log (instead of reflection).
public protocol NamedAction {
    /// The dotted case path, e.g. `cart.remove`.
    var actionCaseName: String { get }
}
