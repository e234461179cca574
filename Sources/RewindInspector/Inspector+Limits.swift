extension Inspector {
    /// How the inspector bounds the work its API calls start (see ``InspectorJob``).
    ///
    /// The defaults keep a page responsive on a laptop: a call answers on its own request when
    /// it can within a second; a long one (a verify of a million actions) becomes a job the page
    /// polls, with progress, and is cancelled when the page stops asking (closed, reloaded).
    public struct Limits: Sendable {
        /// How long a request waits for its answer before it is answered `202 Accepted` with a
        /// job to poll. A poll waits as long for the job to end.
        public var answerWithin: Duration = .seconds(1)
        /// How long a job nobody asks about runs on before it is cancelled, and how long a
        /// finished job's answer is kept for its poller.
        public var abandonAfter: Duration = .seconds(5)
        /// How many long calls (``InspectorAPI/isLong(_:)``: replays) run at once; more wait
        /// their turn, in order.
        public var running = 2
        /// How many calls may run or wait at once, long or not; beyond that a call is answered
        /// `503 Service Unavailable` with `Retry-After`.
        public var calls = 64

        /// The defaults.
        public init() {}
    }
}
