/// Keeps secrets — passwords, tokens, card numbers — out of the log: one declared policy for
/// everything the recorder writes.
///
/// - **Actions**: per action, record it as it is, a copy with secret fields scrubbed, or only
///   its case and source (withheld).
/// - **State**: a scrub applied to every snapshot before it is encoded — the initial one, the
///   periodic ones, and the one a session resumes from after a gap — so a token the reducer
///   stored never reaches the file, nor any export or fixture made from it.
/// - **Notes** (the `info:` given at dispatch): kept only for actions recorded as they are, and
///   then through ``notes``; a scrubbed or withheld action's note is never written.
///
/// What the policy removes never reaches the disk: it runs before encoding, on the writer
/// thread. The event's `redaction` column says that it happened (`fields` or `action`).
///
/// ```swift
/// let redaction = Redaction<AppState, AppAction> { action in
///     switch action {
///     case let .login(.submit(user, _)): .scrub(.login(.submit(user: user, password: "•••")))
///     case .payment(.cardEntered): .withhold
///     default: .keep
///     }
/// }
/// .scrubbing(\.session.token, with: nil)
/// .scrubbing(\.payment.cardNumber, with: "")
/// ```
///
/// Replay over scrubbed snapshots stays meaningful when the scrubbed fields do not feed the
/// others: give the same policy to the `Replayer` (or `ReplayableApp`) and `verify` compares
/// replayed and recorded states after the same scrub, and names the scrubbed fields. A withheld
/// action cannot be replayed: replay stops there with an error that says so.
///
/// What it does not cover: case names come from the action type's declaration (case names,
/// `Codable` keys, generated code, `NamedAction`), never from payload values — a
/// `NamedAction` that puts values in its name is the app's to fix. The session's
/// ``RecorderConfiguration/sessionInfo`` is written as given. Secrets in memory, in
/// ``RecorderConfiguration/onFailure`` reports, or in the app's own logging are out of scope.
/// What is kept is readable by anyone who has the file: redaction decides what is written, not
/// who can read it.
public struct Redaction<State, Action>: Sendable {
    /// What to record of one action.
    public typealias Decision = RedactionDecision<Action>

    /// Decides for each action.
    public var decide: @Sendable (Action) -> Decision
    /// Scrubs a state before it is written (every snapshot) or compared by `verify`.
    public var scrubState: @Sendable (inout State) -> Void
    /// The note recorded with a kept action, from the note given at dispatch; `nil` records
    /// none. Scrubbed and withheld actions never carry their note.
    public var notes: @Sendable (_ note: String, _ action: Action) -> String?
    /// What ``scrubState`` replaces, as key paths or the names given to
    /// ``scrubbingState(named:_:)``: reports (`verify`) list them.
    public private(set) var scrubbedFields: [String] = []

    /// Creates a policy from a decision per action; state and notes are kept until
    /// ``scrubbing(_:with:)``, ``scrubbingState(named:_:)`` or ``notes`` say otherwise.
    ///
    /// - Parameter decide: Returns what to record of an action.
    public init(_ decide: @escaping @Sendable (Action) -> Decision) {
        self.decide = decide
        scrubState = { _ in }
        notes = { note, _ in note }
    }

    /// Records every action, note and state as it is.
    public static var none: Redaction { Redaction { _ in .keep } }

    /// This policy, also replacing the state's value at `keyPath` with `replacement` in every
    /// snapshot.
    ///
    /// - Parameters:
    ///   - keyPath: Where the secret is kept.
    ///   - replacement: What the snapshot holds instead (`nil`, `""`, a placeholder).
    public func scrubbing<Value: Sendable>(_ keyPath: any WritableKeyPath<State, Value> & Sendable, with replacement: Value) -> Self {
        scrubbingState(named: "\(keyPath)") { $0[keyPath: keyPath] = replacement }
    }

    /// This policy, also scrubbing every snapshot with `scrub` (for secrets a key path cannot
    /// reach: dictionary values, array elements).
    ///
    /// - Parameters:
    ///   - name: What `scrub` replaces, for reports.
    ///   - scrub: Replaces the secrets in a state.
    public func scrubbingState(named name: String, _ scrub: @escaping @Sendable (inout State) -> Void) -> Self {
        var copy = self
        let previous = scrubState
        copy.scrubState = { state in
            previous(&state)
            scrub(&state)
        }
        copy.scrubbedFields.append(name)
        return copy
    }

    /// This policy, recording no dispatch notes at all.
    public var droppingNotes: Self {
        var copy = self
        copy.notes = { _, _ in nil }
        return copy
    }

    /// `state` as the log holds it: scrubbed.
    public func scrubbed(_ state: State) -> State {
        var state = state
        scrubState(&state)
        return state
    }

    /// The note to record with `action`, after `decision`.
    func note(_ note: String?, for action: Action, decision: Decision) -> String? {
        decision.note(note, for: action, notes: notes)
    }
}

/// What a ``Redaction`` records of one action.
public enum RedactionDecision<Action> {
    /// The action as it is.
    case keep
    /// This copy instead, with the secret fields replaced.
    case scrub(Action)
    /// Only the action's case and source, no payload.
    case withhold

    /// The note to record with `action` so decided: what `notes` makes of it, for an action
    /// kept as it is; none for one scrubbed or withheld.
    @inlinable
    func note(_ note: String?, for action: Action, notes: (String, Action) -> String?) -> String? {
        guard let note, case .keep = self else { return nil }
        return notes(note, action)
    }
}
