import Rewind

/// The example todo app: lists of items with filters, renames, moves and a sync effect.
///
/// - ``TodoState`` / ``TodoAction``: the app's state and its nested actions.
/// - ``Todo/reducer``: the pure logic, built from per-feature reducers lifted onto the app.
/// - ``Todo/effects(environment:)``: syncs changes through an injected service, and starts a
///   sync by itself after every few changes (a middleware-dispatched action).
/// - ``ListsScreen``, ``ListScreen``: the imperative shell a UI would call.
/// - ``TodoUser``: a seeded, scripted user; ``Todo/sessionActions(count:seed:)`` records a
///   reproducible session.
public enum Todo {
    /// How many unsynced changes make the middleware start a sync by itself.
    public static let autoSyncThreshold = 8
}
