import Rewind

/// A mediator through which the feedbacks of different loops push and receive events, Spin's
/// `Gear`: loops stay independent, and talk through a shared vocabulary of gear events.
///
/// ```swift
/// enum AppSignal { case signedOut, signedIn }
/// let gear = Gear<AppSignal>()
///
/// // The feature loop tells the gear when the server refuses it…
/// let refused = Feedback<Feature, Feature.Event>.propagating(to: gear) { $0.status == .unauthorized ? .signedOut : nil }
/// // …and the session loop catches that and asks the user to sign in again.
/// let expire = Feedback<Session, Session.Event>.catching(from: gear) { $0 == .signedOut ? .expire : nil }
/// ```
///
/// A gear event reaches every feedback listening at the time it is propagated; listeners
/// subscribe when their loop starts.
public final class Gear<GearEvent: Sendable>: Sendable {
    private let broadcast = Broadcast<GearEvent>()

    /// Creates a gear.
    public init() {}

    /// Sends an event to every listening feedback.
    ///
    /// - Parameter event: The event to hand to every attached loop.
    public func propagate(_ event: GearEvent) {
        broadcast.send(event)
    }

    /// Every event propagated from now on, in order.
    public var events: AsyncStream<GearEvent> {
        broadcast.subscribe()
    }
}

extension Feedback {
    /// A feedback that turns gear events into this loop's events.
    ///
    /// It listens from the moment the loop starts until it stops.
    ///
    /// - Parameters:
    ///   - gear: The gear to listen to.
    ///   - name: A name for the log.
    ///   - transform: The event for this loop, or `nil` to ignore the gear event.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    /// - Returns: The feedback.
    public static func catching<GearEvent>(
        from gear: Gear<GearEvent>,
        _ name: String? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column,
        _ transform: @escaping @Sendable (GearEvent) -> Event?
    ) -> Feedback {
        Feedback(
            body: .stream { _, emit in
                // Subscribed now, as the loop starts, so no event propagated after `start` is missed.
                let events = gear.events
                return {
                    for await gearEvent in events {
                        if let event = transform(gearEvent) { emit(event) }
                    }
                }
            },
            source: source(name, file: file, function: function, line: line, column: column)
        )
    }

    /// A feedback that propagates a gear event when a state calls for one.
    ///
    /// It runs as a reaction, on the loop's turn, and sends nothing into its own loop.
    ///
    /// - Parameters:
    ///   - gear: The gear to push to.
    ///   - name: A name for failure reports.
    ///   - transform: The gear event a state calls for, or `nil`.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    /// - Returns: The feedback.
    public static func propagating<GearEvent>(
        to gear: Gear<GearEvent>,
        _ name: String? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column,
        _ transform: @escaping @Sendable (State) -> GearEvent?
    ) -> Feedback {
        Feedback(
            body: .reaction { state in
                if let gearEvent = transform(state) { gear.propagate(gearEvent) }
                return nil
            },
            source: source(name, file: file, function: function, line: line, column: column)
        )
    }
}
