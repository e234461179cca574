#if MCP
import MCP

/// One question `rewind mcp` answers, as an MCP tool: the inspector endpoint that answers it
/// (so the answer is the CLI's `--json` report, validated and worded as the CLI does), and the
/// arguments it takes, each passed to the endpoint by name.
struct AgentTool: Sendable {
    /// One argument.
    struct Argument: Sendable {
        enum Kind: Sendable {
            case integer, string, boolean
            /// A list of seqs, passed as `8,20`.
            case integers
        }

        let name: String
        let kind: Kind
        let description: String
        var required = false
    }

    let name: String
    let title: String
    let description: String
    /// The inspector endpoint (``LogInspection/endpoints``) that answers it.
    let endpoint: String
    let arguments: [Argument]

    /// The argument every tool takes: which of the logs opened at launch.
    static let log = Argument(name: "log", kind: .string, description: "Which log, as `rewind mcp` was given it (or its file name); needed only when it was given several.")

    /// The tool as `tools/list` describes it: read-only, closed-world, its arguments a JSON
    /// Schema that admits nothing else.
    var listed: Tool {
        var properties: [String: Value] = [:]
        for argument in arguments + [Self.log] {
            let type: Value = switch argument.kind {
            case .integer: ["type": "integer", "minimum": 0]
            case .string: ["type": "string"]
            case .boolean: ["type": "boolean"]
            case .integers: ["type": "array", "items": ["type": "integer", "minimum": 1], "maxItems": 1_000]
            }
            var schema = type.objectValue ?? [:]
            schema["description"] = .string(argument.description)
            properties[argument.name] = .object(schema)
        }
        let required = arguments.filter(\.required).map { Value.string($0.name) }
        return Tool(
            name: name, title: title, description: description,
            inputSchema: ["type": "object", "properties": .object(properties), "required": .array(required), "additionalProperties": false],
            annotations: Tool.Annotations(title: title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false)
        )
    }
}

extension AgentTool {
    private static func seq(_ name: String, _ what: String, required: Bool = false) -> Argument {
        Argument(name: name, kind: .integer, description: what, required: required)
    }

    private static let session = Argument(name: "session", kind: .integer, description: "Only this session (a number from `sessions`).")

    /// Every tool, in the order `tools/list` gives them.
    static let all: [AgentTool] = [
        AgentTool(
            name: "sessions", title: "Sessions",
            description: "The log's sessions (one per launch of the app): id, app and version, codec, seqs, start and end times, and how each ended. Start here.",
            endpoint: "sessions", arguments: []
        ),
        AgentTool(
            name: "log", title: "Events",
            description: """
                A page of the log's events in order, each with seq, time, action case, source (file, line, function), origin, \
                payload, cause and root. Page forward with after=<last seq> (0: the start) or backward with before=<first seq>; \
                `more` says whether there are more. Filter by session, seq range, time, case pattern (cart.*) or source file.
                """,
            endpoint: "events",
            arguments: [
                seq("after", "Read forward from just after this seq (0: the start)."),
                seq("before", "Read backward from just before this seq."),
                Argument(name: "limit", kind: .integer, description: "Events per page, 1 to 1000 (default 100)."),
                session,
                seq("from", "From this seq."), seq("to", "Up to this seq."),
                Argument(name: "since", kind: .string, description: "From this time: ISO-8601, or an age such as 10m or 2h."),
                Argument(name: "until", kind: .string, description: "Up to this time: ISO-8601, or an age."),
                Argument(name: "case", kind: .string, description: "Action cases matching this pattern: cart.setQuantity, cart.*."),
                Argument(name: "file", kind: .string, description: "Events dispatched from source files whose path contains this."),
                Argument(name: "line", kind: .integer, description: "With file: dispatched from this line."),
                Argument(name: "collapse", kind: .integers, description: "Gestures (root seqs) whose consequences to leave out."),
            ]
        ),
        AgentTool(
            name: "show", title: "One event",
            description: "One event in full: its action's payload, source, note, redaction, cause and root.",
            endpoint: "event", arguments: [seq("at", "The event's seq.", required: true)]
        ),
        AgentTool(
            name: "state", title: "State at a seq",
            description: "The app's state after an event, replayed from the nearest snapshot with the app's reducer.",
            endpoint: "state", arguments: [seq("at", "The event's seq.", required: true)]
        ),
        AgentTool(
            name: "diff", title: "What changed",
            description: "What one action changed in the state (at), or how the states after two events differ (from and to).",
            endpoint: "diff", arguments: [seq("at", "The action's seq."), seq("from", "The earlier event."), seq("to", "The later event.")]
        ),
        AgentTool(
            name: "why", title: "Why it happened",
            description: "Why an event happened: its chain of causes from the gesture (or outside event) that started it, each step an action whose middleware dispatched the next or whose effect sent it.",
            endpoint: "why", arguments: [seq("at", "The event's seq.", required: true)]
        ),
        AgentTool(
            name: "blame", title: "Who changed a value",
            description: "Every action that changed the value at a path of the state (cart.total, cart.lines[0].quantity, cart.lines.count): seq, case, source, old and new value. A path that does not exist names the nearest one.",
            endpoint: "blame",
            arguments: [
                Argument(name: "path", kind: .string, description: "The value, as `state` shows the state: cart.total.", required: true),
                session, seq("from", "From this seq."), seq("to", "Up to this seq."),
            ]
        ),
        AgentTool(
            name: "bisect", title: "Find where it broke",
            description: "The first action after which an invariant breaks (invariant: its name; `sessions` and the app's invariants name them) or a condition on the state holds (where: path op value, e.g. cart.total < 0), with what it changed.",
            endpoint: "bisect",
            arguments: [
                Argument(name: "invariant", kind: .string, description: "The invariant's name, e.g. non-negative-total."),
                Argument(name: "where", kind: .string, description: "A condition on the state's JSON: path op value (cart.lines.count >= 3; <, <=, >, >=, ==, !=)."),
                session,
                Argument(name: "monotonic", kind: .boolean, description: "The condition stays true once true: check snapshots first (faster)."),
            ]
        ),
        AgentTool(
            name: "verify", title: "Does replay reproduce it",
            description: "Replays the log and compares with every recorded snapshot: whether today's reducer reproduces the recording, and where it first diverges.",
            endpoint: "verify", arguments: [session]
        ),
        AgentTool(
            name: "shrink", title: "Fewest actions that break it",
            description: "The fewest actions (by delta debugging) that still break an invariant or make a condition hold, and a Swift test that replays them.",
            endpoint: "shrink",
            arguments: [
                Argument(name: "invariant", kind: .string, description: "The invariant's name."),
                Argument(name: "where", kind: .string, description: "A condition on the state's JSON: path op value."),
                session,
            ]
        ),
        AgentTool(
            name: "profile", title: "What each action costs",
            description: "Replays sessions and times each action's reducer in this build: per case count, p50, p99, max and total (nanoseconds); the slowest actions.",
            endpoint: "profile",
            arguments: [session, seq("from", "From this seq."), seq("to", "Up to this seq."), Argument(name: "slowest", kind: .integer, description: "How many slowest actions to list (default 10).")]
        ),
    ]
}
#endif
