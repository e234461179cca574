import Foundation
import GRDB
import GRDBSQLite
import Synchronization
import RewindLogCore

/// The `payloads` table (schema 11): a payload that repeats is stored once, and the events that
/// carry it store the row's id in their `payload` column instead of the bytes.
///
/// Apps dispatch the same payload again and again — the same product added, a catalogue
/// reloaded, a settings object saved unchanged. The writer remembers the payloads it has seen;
/// the first two times one appears it stays inline, the third time it goes into `payloads` and
/// from then on events refer to it. (Sharing from the second time would cost a payload seen
/// exactly twice a row besides its two copies; from the third, a payload seen once or twice
/// costs nothing extra on disk.) Sharing is decided by the bytes as stored, so encrypted
/// payloads (sealed to their seq) never repeat and never share.
///
/// Ids are `AUTOINCREMENT`, never reused. Retention deletes rows no event refers to any more,
/// possibly from another connection, so a writer that refers to a row it remembers writes it
/// again under the same id when it is gone: one primary-key probe per row and transaction (no
/// other connection can delete it while the writer's transaction is open) — unless nothing
/// can have deleted it since a transaction that knew it there (``Presence``).
///
/// Readers join `payloads` on the reference (the replay loop, pages of events, the `timeline`
/// view): a primary-key probe for a reference, nothing for a payload inline, and no cache
/// whose size would grow with the log.
final class SharedPayloads: Sendable {
    /// Shorter payloads always stay inline: a reference (0–3 bytes for the first million rows)
    /// saves too little on them to pay for remembering them. Most of the shop's payloads are
    /// 19–24 bytes in binary and repeat (the same product added, the same discount code); 64
    /// left them inline and the binary log at 49.3 bytes per event, 16 brings it to 29.8.
    static let threshold = 16
    /// Bytes of payloads the writer remembers: memory stays bounded whatever the app
    /// dispatches. When it is full the writer forgets the payloads it saw once and keeps those it
    /// shares. A payload of more than half of it is never remembered (it stays inline).
    static let memoryBudget = 1 << 20

    /// What the writer remembers of a payload it has seen.
    private struct Sighting {
        /// `0` when it was stored inline once, `-1` twice, else the id of its row in `payloads`.
        var id: Int64
        /// The generation of knowledge (``Presence``) in which its row was last known to be in
        /// place: kept beside the sighting, so that one dictionary access a sighting both finds
        /// the row and says whether it must be probed, with no set of rows beside it (whose
        /// insert was a second hash per shared sighting: 1–2 % of the recorder's writer thread).
        var present: UInt64 = 0

        /// The id of a payload not seen yet, before ``see(knowing:)``.
        static let unseen = Int64.min

        /// What to do with the payload seen once more.
        enum Next {
            /// Seen the first or second time: stored inline.
            case first, second
            /// The third time: stored in a new row, shared from now on.
            case share
            /// Its row, not known to be in place in this transaction: probed (and written
            /// again if gone).
            case probe(Int64)
            /// Its row, known to be in place.
            case refer(Int64)
        }

        /// Counts one more sighting, `generation` being the transaction's.
        mutating func see(knowing generation: UInt64) -> Next {
            switch id {
            case Self.unseen:
                id = 0
                return .first
            case 0:
                id = -1
                return .second
            case -1:
                return .share
            default:
                guard present != generation else { return .refer(id) }
                present = generation
                return .probe(id)
            }
        }
    }

    private struct Sightings {
        var ids: [Data: Sighting] = [:]
        var bytes = 0

        /// Forgets the payloads seen once, keeping those already shared; all of them when the
        /// shared ones alone fill half the budget.
        mutating func makeRoom() {
            ids = ids.filter { $0.value.id > 0 }
            bytes = ids.keys.reduce(0) { $0 + $1.count }
            if bytes > SharedPayloads.memoryBudget / 2 { self = Sightings() }
        }
    }

    private let sightings = Mutex(Sightings())

    /// What a write transaction knows to be in place: the rows marked with its generation —
    /// those it wrote or probed, and those the last transaction knew, when nothing can have
    /// deleted a row since (it then goes on with that transaction's generation; otherwise it
    /// starts a new one, which no row is marked with). Only retention deletes rows: on this
    /// connection it says so (``retentionDeletedRows()``), and a commit by any other connection
    /// — another writer, `rewind trim`, another process — changes `PRAGMA data_version`.
    /// Measured, the probes were 4.6 % of the recorder's writer thread (`rewind-bench
    /// --workload record --codec binary`, profiled), one per shared row and transaction.
    struct Presence {
        /// The connection's `data_version` in this transaction, once read.
        fileprivate var version: Int64?
        fileprivate var generation: UInt64 = 0

        /// Nothing known yet: start of a write transaction.
        init() {}
    }

    /// What the last committed transaction knew (`version` `nil`: nothing).
    private let known = Mutex(Presence())
    /// The last generation given out: each new one is greater, so no sighting carries it yet.
    private let generations = Atomic<UInt64>(0)

    /// What the event's `payload` column stores for `payload`: `nil` to store the bytes inline,
    /// or the id of the row holding them. Call inside the write transaction that inserts the
    /// event, with a new `present` at its start (the rows known to be there in it), given to
    /// ``keep(_:)`` once its inserts are done; if it rolls back, ``forget()``.
    func reference(for payload: Data, isText: Bool, present: inout Presence, in db: Database) throws -> Int64? {
        guard payload.count >= Self.threshold, payload.count <= Self.memoryBudget / 2 else { return nil }
        if present.version == nil { try recall(into: &present, in: db) }
        let generation = present.generation
        let next: Sighting.Next = sightings.withLock { sightings in
            // One hash of the bytes: the entry is found or made, and changed in place.
            let next = sightings.ids[payload, default: Sighting(id: Sighting.unseen)].see(knowing: generation)
            if case .first = next {
                sightings.bytes += payload.count
                if sightings.bytes > Self.memoryBudget {
                    // Room is made as it would have been before this payload came; then it comes in.
                    sightings.makeRoom()
                    sightings.ids[payload] = Sighting(id: 0)
                    sightings.bytes += payload.count
                }
            }
            return next
        }
        switch next {
        case .first, .second:
            return nil
        case let .refer(id):
            return id
        case let .probe(id):
            // Written again if retention deleted it since: same id, same bytes. Once per
            // transaction: measured, a probe per event recorded JSON about 18 % slower.
            try step(db.cachedStatement(sql: "INSERT INTO payloads (id, bytes) VALUES (?, ?) ON CONFLICT (id) DO NOTHING"),
                     id: id, payload: payload, isText: isText, in: db)
            return id
        case .share:
            try step(db.cachedStatement(sql: "INSERT INTO payloads (bytes) VALUES (?)"), id: nil, payload: payload, isText: isText, in: db)
            let id = db.lastInsertedRowID
            sightings.withLock { sightings in
                if sightings.ids[payload] != nil { sightings.ids[payload] = Sighting(id: id, present: generation) }
            }
            return id
        }
    }

    /// Gives `present`, which knows no row yet, the generation of the last transaction if no
    /// row can have gone since, else a new one.
    private func recall(into present: inout Presence, in db: Database) throws {
        let version = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? -1
        // Taken, not copied: a transaction that ends without `keep` (or `forget`) leaves the
        // next one nothing to trust.
        let kept = known.withLock { known in
            defer { known = Presence() }
            return known
        }
        present.version = version
        present.generation = kept.version == version
            ? kept.generation
            : generations.add(1, ordering: .relaxed).newValue
    }

    /// Keeps what a transaction knew for the next one. Call once its inserts are done, inside
    /// it: if it rolls back, ``forget()`` follows.
    func keep(_ present: Presence) {
        guard present.version != nil else { return }
        known.withLock { $0 = present }
    }

    /// Retention on this connection deleted rows: the next transaction knows none.
    func retentionDeletedRows() {
        known.withLock { $0 = Presence() }
    }

    /// Bytes of payloads the writer remembers now (at most ``memoryBudget``).
    var rememberedBytes: Int { sightings.withLock { $0.bytes } }

    /// Forgets what the writer remembers (after a rollback, rows inserted in it are gone).
    func forget() {
        sightings.withLock { $0 = Sightings() }
        known.withLock { $0 = Presence() }
    }

    /// The damage of an event whose reference points at no row.
    static func missing(_ id: Int64, seq: Int64) -> RowDamage {
        RowDamage("event \(seq) refers to shared payload \(id), which the payloads table does not hold")
    }

    private func step(_ statement: Statement, id: Int64?, payload: Data, isText: Bool, in db: Database) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        var index: Int32 = 1
        if let id {
            sqlite3_bind_int64(handle, 1, id)
            index = 2
        }
        RawBinding.bind(payload: payload, isText: isText, to: handle, at: index)
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        guard code == SQLITE_DONE else { throw RawBinding.error(code, stepping: statement, in: db) }
    }
}
