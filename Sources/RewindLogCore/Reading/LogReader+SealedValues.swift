import Foundation

extension LogReader {
    /// Opens every encrypted payload and snapshot of each session whose key the log has.
    package func checkSealedValues() throws(EventLogError) -> (failing: [IntegrityReport.SealedValue], unchecked: [Int64: String]) {
        var failing: [IntegrityReport.SealedValue] = []
        var unchecked: [Int64: String] = [:]
        for session in try sessions() where session.encryption != nil && failing.count < 100 {
            let storage: SessionStorage
            do {
                storage = try self.storage(for: session)
            } catch .keyMissing {
                unchecked[session.id] = "its key '\(session.encryption?.keyID ?? "")' was not given"
                continue
            } catch .wrongKey {
                unchecked[session.id] = "the key given as '\(session.encryption?.keyID ?? "")' is not its key"
                continue
            }
            func check(_ body: () throws(EventLogError) -> Void) throws(EventLogError) {
                do {
                    try body()
                } catch let .authenticationFailed(_, session, seq, what) {
                    failing.append(.init(session: session, seq: seq, what: what))
                }
            }
            for entry in try snapshotIndex(session: session.id) {
                guard let snapshot = try snapshot(session: session.id, atOrBefore: entry.seq), snapshot.seq == entry.seq else { continue }
                try check { () throws(EventLogError) in
                    _ = try storage.encoded(snapshot.state, seq: snapshot.seq, kind: .snapshot, what: "the \(snapshot.kind) snapshot")
                }
            }
            guard let range = session.seqRange else { continue }
            _ = try forEachRawEvent(session: session.id, from: range.lowerBound, through: range.upperBound) { event throws(EventLogError) -> FoldStep in
                guard let payload = event.payload else { return .continue }
                try check { () throws(EventLogError) in
                    try storage.withEncoded(payload, seq: event.seq, kind: .event, what: "the payload of \(event.actionCase)") { _ in }
                }
                return failing.count < 100 ? .continue : .stop
            }
        }
        return (Array(failing.prefix(100)), unchecked)
    }
}
