import GRDB
import GRDBSQLite
import Synchronization

/// Moves the write-ahead log's checkpoints out of a recorder's commits.
///
/// SQLite checkpoints (copies the write-ahead log's pages into the database file, and syncs it)
/// inside the commit that takes the log past 1,000 pages. On a recorder's writer that commit was
/// among the longest of a burst: in the bench's burst of 100,000 shop actions, 12–15 ms where
/// the paced commits took 8, and a dispatch waiting for room waits for it. So while a recorder
/// writes through the log (``deferring``), a commit leaves the checkpoint to the writer, which
/// checkpoints once it has caught up with the app (``EventLog/checkpoint()``) — unless the log
/// has reached twice that, where the commit checkpoints as SQLite would. (Four times measured
/// worse: in the bench's burst with a snapshot every 1,000 actions, whose 20 MB never let the
/// writer catch up, the longest commit was 34–36 ms with it, 22–25 with SQLite's own
/// checkpoints, and 25 with twice their pages.) Without a recorder the connection checkpoints at
/// 1,000 pages, as SQLite's own hook does (this hook replaces it: SQLite's automatic checkpoint
/// is itself a write-ahead log hook).
final class CheckpointDeferral: Sendable {
    /// Where SQLite checkpoints by default (`wal_autocheckpoint`).
    static let pages = 1_000
    /// Where a commit checkpoints even while a recorder defers it: about the most the
    /// write-ahead log grows in a burst that never lets the writer catch up (8 MB at 4 KiB a
    /// page, and the commit that passed it).
    static let mostPages = 2 * pages

    /// The pages in the write-ahead log after the last commit (0 once checkpointed here).
    let walPages = Atomic<Int>(0)
    /// Whether a recorder writes through the log, and checkpoints when it catches up.
    let deferring = Atomic<Bool>(false)

    /// Installs the hook on `db`'s connection, in place of SQLite's automatic checkpoint. The
    /// deferral must outlive the connection (the log holds both).
    func install(on db: Database) {
        sqlite3_wal_hook(db.sqliteConnection, { context, connection, name, pages in
            guard let context else { return SQLITE_OK }
            let deferral = Unmanaged<CheckpointDeferral>.fromOpaque(context).takeUnretainedValue()
            deferral.walPages.store(Int(pages), ordering: .relaxed)
            let limit = deferral.deferring.load(ordering: .relaxed) ? CheckpointDeferral.mostPages : CheckpointDeferral.pages
            // A passive checkpoint, as SQLite's own hook runs: it never waits for readers.
            if pages >= limit {
                sqlite3_wal_checkpoint(connection, name)
                deferral.walPages.store(0, ordering: .relaxed)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Whether a commit put off a checkpoint SQLite would have run by now.
    var isWanted: Bool {
        walPages.load(ordering: .relaxed) >= Self.pages
    }
}
