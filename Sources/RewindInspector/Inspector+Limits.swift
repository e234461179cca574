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
        /// How long a job nobody asks about runs on before it is cancelled. Long enough that a
        /// page, or a client, starved for seconds on a loaded machine between two asks does not
        /// lose a job that is still running (a `404` then); short enough that a closed page's
        /// replay stops soon.
        public var abandonAfter: Duration = .seconds(15)
        /// How long a finished job's answer is kept for a poller that was handed its id and has
        /// not asked since. Longer than ``abandonAfter``: a kept answer costs only memory, while
        /// a page on a loaded machine (or a slow network) may poll seconds late, and a `404` for
        /// a job it was just given would lose the answer it waited for. At most ``calls``
        /// answers are kept; beyond that the least recently asked one is dropped.
        public var keepAnswersFor: Duration = .seconds(60)
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
