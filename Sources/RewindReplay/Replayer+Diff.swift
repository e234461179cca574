import CustomDump
public import RewindLog

extension Replayer {
    /// What the action at `seq` changed: the state before and after it, and their difference.
    ///
    /// - Parameter seq: The event.
    /// - Returns: The event, its action, both states and the diff.
    public func diff(at seq: Int64) throws(EventLogError) -> ActionDiff<State, Action> {
        let reader = try reader(for: log.session(containing: seq))
        let before = try fold(reader, through: seq - 1).state
        let event = try log.event(at: seq)
        let action = try reader.action(of: event, as: Action.self)
        var after = before
        reducer(&after, action)
        return ActionDiff(event: event, action: action, before: before, after: after, diff: Self.difference(before, after))
    }

    /// The difference between the states after two events (of any sessions), `-` for the
    /// first and `+` for the second, or `nil` when they are equal.
    public func diff(from first: Int64, to second: Int64) throws(EventLogError) -> String? {
        Self.difference(try state(at: first), try state(at: second))
    }

    /// A readable, structured difference between two values (swift-custom-dump's format).
    public static func difference(_ old: State, _ new: State) -> String? {
        CustomDump.diff(old, new)
    }
}
