import Foundation
import RewindInspector
import RewindLog

extension InspectorEndpoint {
    /// `GET /api/overview`: what the page shows first: the log's seq range, its sessions (as
    /// `rewind sessions --json`), for each app that recorded them whether this tool can
    /// replay it and its invariants, and how the app's types changed since sessions were
    /// recorded where the schema versions do not account for it (as `rewind schema --diff`).
    static let overview = InspectorEndpoint { call, inspection in
        let sessions: SessionsCommand = try inspection.parse(call)
        let log = try sessions.options.open()
        let range = try log.seqRange()
        let report = try sessions.report()
        let ids = Array(Set(report.sessions.map(\.app))).sorted()
        let all = try log.sessions()
        var drifts: [Overview.Drift] = []
        for id in ids where AppRegistry.app(id: id) != nil {
            let recorded = all.filter { $0.app.id == id && ($0.actionFingerprint != nil || $0.stateFingerprint != nil) }
            guard !recorded.isEmpty else { continue }
            // A damaged shape loses the warning, not the page (`rewind schema` names the damage).
            guard let compared = try? SchemaCommand.compared(recorded, in: log) else { continue }
            for group in compared.groups {
                for drift in [group.action?.drift, group.state?.drift].compactMap({ $0 }) {
                    drifts.append(.init(
                        sessions: group.sessions, label: Rendering.sessionList(group.sessions), changes: drift.changes.map(\.description), drift: drift
                    ))
                }
            }
        }
        return try .json(encoding: Overview(
            path: inspection.name,
            seqs: range.map { [$0.lowerBound, $0.upperBound] },
            sessions: report,
            apps: ids.map { id in
                let app = AppRegistry.app(id: id)
                return .init(id: id, replayable: app != nil, invariants: app.map(AppsCommand.Invariant.all(of:)) ?? [])
            },
            drifts: drifts
        ))
    }

    /// `GET /api/head`: the last seq and the number of sessions, cheap enough to ask every
    /// second while a recorder appends (the page's live mode).
    static let head = InspectorEndpoint { call, inspection in
        let sessions: SessionsCommand = try inspection.parse(call)
        let log = try sessions.options.open()
        return try .json(encoding: Head(seqs: try log.seqRange().map { [$0.lowerBound, $0.upperBound] }, sessions: try log.sessions().count))
    }

    /// `GET /api/snapshots?session=N`: the recorded snapshots (all sessions unless given), for
    /// the page to mark which ones `verify` reproduced.
    static let snapshots = InspectorEndpoint(options: ["session"]) { call, inspection in
        // Parsed as `verify`'s arguments: the log, and an optional session checked as verify checks it.
        let command: VerifyCommand = try inspection.parse(call)
        let log = try command.options.open()
        let sessions = try command.session.map { [try log.session($0)] } ?? log.sessions()
        let snapshots = try sessions.flatMap { session in
            try log.snapshotIndex(session: session.id).map { Snapshot(session: session.id, seq: $0.seq, kind: $0.kind, time: Rendering.timestamp($0.time)) }
        }
        return try .json(encoding: Snapshots(snapshots: snapshots))
    }

    /// `GET /api/events`: a page of the timeline, filtered as `rewind log` filters (session,
    /// from, to, since, until, case, file, line), each event as `rewind log --json` prints it.
    /// `after=SEQ` reads forward from just after a seq (0: the start), `before=SEQ` backward
    /// from just before it (scrolling up); `limit` is 1–1000 (100 unless given). `more` says
    /// whether the page stopped short of the end in its direction. `collapse=8,20` leaves out
    /// what those gestures led to (the events whose chain starts at one of them, the gesture's
    /// own event kept); a page skips at most ``collapsedScanLimit`` such events, then ends
    /// early with `more`.
    static let events = InspectorEndpoint(
        options: ["session", "from", "to", "since", "until", "case", "file", "line"],
        own: ["after", "before", "limit", "collapse"]
    ) { call, inspection in
        let command: LogCommand = try inspection.parse(call)
        let limit = Int(try call.integer("limit", in: 1...1_000) ?? 100)
        let after = try call.integer("after", in: 0...Int64.max), before = try call.integer("before", in: 1...Int64.max)
        guard after == nil || before == nil else { throw BadCall(description: "give after=SEQ or before=SEQ, not both") }
        let collapsed = try call.seqs("collapse", limit: 1_000)
        let log = try command.options.open()
        var filter = try command.filter(in: log)
        filter.limit = nil
        /// Whether the page shows `event`: not inside a collapsed gesture.
        func shown(_ event: LoggedEvent) -> Bool {
            guard !collapsed.isEmpty, let root = event.root, root != event.seq else { return true }
            return !collapsed.contains(root)
        }
        var events: [LoggedEvent] = []
        var more = false
        var skipped = 0
        if let before {
            var end = before, readToStart = false
            // Backward a page at a time, until the page is full or the range is read.
            while events.count <= limit, skipped < collapsedScanLimit {
                let page = try log.events(filter, before: end, count: limit + 1)
                let kept = page.filter(shown)
                skipped += page.count - kept.count
                events = kept + events
                guard let first = page.first, page.count > limit else { readToStart = true; break }
                end = first.seq
            }
            more = !readToStart || events.count > limit
            if events.count > limit { events.removeFirst(events.count - limit) }
        } else {
            let low = after.map { $0 == .max ? $0 : $0 + 1 } ?? 1
            let range = (max(low, filter.seqs?.lowerBound ?? 1), filter.seqs?.upperBound ?? .max)
            if after != .max, range.0 <= range.1 {
                filter.seqs = range.0...range.1
                var cursor = log.events(filter, pageSize: limit + 1)
                while events.count <= limit, let event = try cursor.next() {
                    if shown(event) {
                        events.append(event)
                    } else {
                        skipped += 1
                        if skipped >= collapsedScanLimit { more = true; break }
                    }
                }
            }
            more = more || events.count > limit
            if events.count > limit { events.removeLast(events.count - limit) }
        }
        return try .json(encoding: Page(events: try events.map { try EventReport($0, in: log) }, more: more))
    }

    /// How many collapsed events one page of `/api/events` skips at most: a gesture that led
    /// to millions of events costs a few pages to scroll past, never one answer that long.
    static let collapsedScanLimit = 50_000

    struct Overview: Encodable {
        var path: String
        /// The first and last seq, absent when the log has no events.
        var seqs: [Int64]?
        var sessions: SessionsCommand.Report
        var apps: [App]

        struct App: Encodable {
            var id: String
            /// Whether this tool has the app's types and reducer (state, diffs, bisect, …).
            var replayable: Bool
            /// As `rewind apps --json` lists them.
            var invariants: [AppsCommand.Invariant]
        }

        /// A change to the app's types since these sessions were recorded.
        var drifts: [Drift]

        struct Drift: Encodable {
            var sessions: [Int64]
            /// `sessions 1–3, 7`.
            var label: String
            /// Each change as the tools print it.
            var changes: [String]
            /// For the first of them (they share app, versions and shapes).
            var drift: SchemaDrift
        }
    }

    struct Snapshots: Encodable {
        var snapshots: [Snapshot]
    }

    struct Snapshot: Encodable {
        var session: Int64
        var seq: Int64
        /// `initial`, `periodic` or `retention`.
        var kind: String
        /// ISO-8601, UTC.
        var time: String
    }

    struct Head: Encodable {
        var seqs: [Int64]?
        var sessions: Int
    }

    struct Page: Encodable {
        var events: [EventReport]
        var more: Bool
    }
}
