public import Foundation
import GRDB
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import RewindLogCore

/// A Rewind log: one SQLite file holding recording sessions, their events and snapshots.
///
/// Opening checks the file before SQLite writes to it: a file that is not SQLite, a SQLite
/// database that is not a Rewind log, a log from a newer Rewind, a truncated file or a
/// read-only file is refused with its own `EventLogError` and left exactly as it was. A new
/// log is created readable and writable by its owner only, in WAL mode, so readers (the
/// `rewind` tool, tests, a second ``EventLog``) can read while a recorder writes.
///
/// ```swift
/// let log = try EventLog(path: "shop.rewind")             // opens or creates
/// for session in try log.sessions() { print(session) }
/// var events = log.events(EventFilter(actionCase: "cart.*"))
/// while let event = try events.next() { print(event.seq, event.actionCase, event.source) }
/// ```
///
/// Any store can record through ``beginSession(app:codec:initialState:info:shapes:at:)`` and
/// ``append(_:to:redaction:)``; Rewind's own `Recorder` middleware does so off the dispatch path.
public final class EventLog: LogReader {
    /// How a log is opened.
    public enum Mode: Sendable, Equatable {
        /// Read only; the file must exist. Nothing is ever written.
        case readOnly
        /// Read and write; the file is created when missing.
        case readWrite
    }

    /// The file's path.
    public let path: String
    /// How the log was opened.
    public let mode: Mode
    /// The codecs this log can decode with, by name.
    public let codecs: PayloadCodecs
    /// The key new sessions are encrypted with, and the keys encrypted sessions are read with.
    public let keys: LogKeys

    let database: DatabaseQueue
    let sources = InternedRows<SourceKey>(.sources)
    let actions = InternedRows<String>(.actions)
    let sharedPayloads = SharedPayloads()
    /// The locks of the sessions this log began and has not ended, by session uuid: held while
    /// the log is open (``SessionLock``).
    let sessionLocks = Mutex<[String: SessionLock]>([:])
    /// The sessions this log marked `crashed` or `hung` and nobody has asked about yet (``takeMarkedSessions()``).
    let markedSessions = Mutex<[Int64]>([])
    /// The highest symbol id read from the file (see ``refreshSymbols(_:)``).
    let symbolWatermark = Mutex<Int64>(0)
    /// The schema version of the file itself. A log of an older schema opened read-only is read
    /// through a migrated temporary copy (``readsMigratedCopy``), so every query in RewindLog is
    /// written for the latest schema only; this keeps what the file says.
    let fileSchemaVersion: Int
    /// Whether this older log, opened read-only, is read through a migrated copy (unlinked
    /// once made: see ``MigratedCopies``).
    private let readsMigratedCopy: Bool
    /// The file read under another name (``init(readingCopy:named:codecs:keys:)``), deleted
    /// with the log.
    private let ownedFile: String?
    /// Which file ``path`` named when the log was opened for writing: a recorder notices it
    /// being deleted or replaced (``isInPlace``).
    let openedFile: FileIdentity?
    /// Set on a log a recorder's writer opened again in place, which the writer closes.
    let openedForRecorder = Atomic<Bool>(false)
    /// When the write-ahead log is checkpointed: by a recorder's writer once it has caught up,
    /// while one writes through this log; at 1,000 pages otherwise (``CheckpointDeferral``).
    let checkpoints = CheckpointDeferral()

    /// Opens the log at `path`, creating it in ``Mode/readWrite`` when missing.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - mode: Read only, or read and write (the default).
    ///   - codecs: The codecs available for reading and writing payloads.
    ///   - keys: The key sessions this log begins are encrypted with, and the keys to read
    ///     encrypted sessions with (see `LogKeys`). Without keys, sessions are recorded in
    ///     the clear, and an encrypted session's payloads and snapshots cannot be read (its
    ///     events, cases and sources can).
    /// - Throws: `EventLogError` saying why the file cannot be used; the file is unchanged.
    public convenience init(path: String, mode: Mode = .readWrite, codecs: PayloadCodecs = .standard, keys: LogKeys = LogKeys()) throws(EventLogError) {
        try self.init(path: path, file: path, ownsFile: false, mode: mode, codecs: codecs, keys: keys)
    }

    /// Opens `file` read-only under the name `name`, deleting it with the log: how a log kept
    /// elsewhere (a fixture kept as a portable export, imported into a temporary file) is read by
    /// everything that reads a log file, with errors and reports naming where it really is.
    ///
    /// - Parameters:
    ///   - file: A log file this process made for the purpose; it is deleted when the log is
    ///     deinitialised, whether or not it opened.
    ///   - name: What ``path`` and every error say instead of the file's path.
    package convenience init(readingCopy file: String, named name: String, codecs: PayloadCodecs = .standard, keys: LogKeys = LogKeys()) throws(EventLogError) {
        do {
            try self.init(path: name, file: file, ownsFile: true, mode: .readOnly, codecs: codecs, keys: keys)
        } catch {
            Self.removeFile(file)
            throw error
        }
    }

    /// The page cache of a log opened for writing, in KiB (SQLite's default is 2,000 KiB).
    static let writerPageCacheKiB = 512

    /// The file the log's data is in: ``path``, or the copy read under that name
    /// (``init(readingCopy:named:codecs:keys:)``).
    var fileOnDisk: String { ownedFile ?? path }

    /// Opens `file`, naming it `path` in errors; `ownsFile` deletes it with the log.
    private init(path: String, file: String, ownsFile: Bool, mode: Mode, codecs: PayloadCodecs, keys: LogKeys) throws(EventLogError) {
        self.path = path
        self.mode = mode
        self.keys = keys
        // Each log has its own codec instances: the binary codec's symbols belong to one file.
        self.codecs = codecs.fresh()
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: file, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw .notSQLite(path: path, reason: "it is a folder") }
            if mode == .readWrite && !Self.isWritable(file) {
                throw .readOnly(path: path, detail: "the file or its folder is not writable")
            }
            if let header = try LogFileHeader.read(path: file) {
                try Self.validate(file, path: path, header: header)
            } else if mode == .readOnly {
                throw .notSQLite(path: path, reason: "the file is empty")
            }
        } else {
            guard mode == .readWrite else { throw .fileNotFound(path: path) }
            try Self.createExclusively(file)
        }
        let checkpoints = self.checkpoints
        let opened = try mappingErrors(path: path) { () throws -> (DatabaseQueue, Int) in
            var configuration = Configuration()
            configuration.label = "RewindLog"
            configuration.busyMode = .timeout(5)
            if mode == .readOnly {
                configuration.readonly = true
                let reader = try DatabaseQueue(path: file, configuration: configuration)
                let version = try reader.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
                guard version < SchemaMigrator.latestVersion else { return (reader, version) }
                return (try Self.migratedCopy(of: reader, path: path), version)
            }
            configuration.journalMode = .wal
            configuration.prepareDatabase { db in
                // A new file: free pages go back to the file system when retention trims (see
                // `EventLog.trim`). SQLite takes this only before the file is initialised,
                // which switching it to WAL already does, so here, before GRDB does that.
                if try Int.fetchOne(db, sql: "PRAGMA page_count") == 0 {
                    try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
                }
            }
            // Switching a new file to WAL needs it to itself, and SQLite answers "busy" at once,
            // without waiting, while another process sets up the same new log: try again.
            return try Self.retryingWhileBusy(for: .seconds(5)) {
                let database = try DatabaseQueue(path: file, configuration: configuration)
                try database.writeWithoutTransaction { db in
                    // Every commit syncs the write-ahead log, so a committed transaction survives
                    // a power cut, not only a crash: with NORMAL (which GRDB sets for WAL), commits
                    // since the last checkpoint may roll back after one. The recorder commits a
                    // batch per transaction, so the sync is paid per batch, not per action.
                    try db.execute(sql: "PRAGMA synchronous = FULL")
                    // On Apple's file systems fsync reaches the drive's cache, not its medium:
                    // only F_FULLFSYNC does, for the write-ahead log's syncs and checkpoints.
                    // Elsewhere SQLite has no F_FULLFSYNC and these change nothing, so they are
                    // set everywhere, and checked on Linux only as set (RecorderTests).
                    try db.execute(sql: "PRAGMA fullfsync = ON")
                    try db.execute(sql: "PRAGMA checkpoint_fullfsync = ON")
                    // A page cache of 512 KiB, not SQLite's 2 MB: a writer appends at the end of
                    // its tables and indexes, and the pages it reads back are in the system's
                    // file cache anyway. On a phone the difference is the recorder's: when it was
                    // set, 9.8 MiB of anonymous memory recording 100,000 shop actions, 7.7 MiB
                    // with this, at the same commit rate and writer CPU (rewind-bench's README).
                    // Read-only logs (the CLI, the inspector) keep SQLite's default.
                    try db.execute(sql: "PRAGMA cache_size = -\(Self.writerPageCacheKiB)")
                    checkpoints.install(on: db)
                    // A write-ahead log a recorder's burst grew past SQLite's usual size (its
                    // checkpoints put off, above) goes back to that size once it is reset, rather
                    // than keeping its largest size on disk.
                    try db.execute(sql: "PRAGMA journal_size_limit = \(CheckpointDeferral.pages * 4_096)")
                    try SchemaMigrator.migrate(db, path: path)
                }
                return (database, SchemaMigrator.latestVersion)
            }
        }
        (database, fileSchemaVersion) = opened
        readsMigratedCopy = mode == .readOnly && fileSchemaVersion < SchemaMigrator.latestVersion
        ownedFile = ownsFile ? file : nil
        openedFile = mode == .readWrite ? FileIdentity(path: file) : nil
        try read { db in
            try SchemaShape.check(db, path: path)
            try refreshSymbols(db)
        }
    }

    /// Creates an empty log file that only its owner can read and write — SQLite gives the
    /// `-wal` and `-shm` files the same mode. Exclusive: when another process creates the same
    /// path first, its file is used as it is, never replaced (`FileManager.createFile` writes
    /// a new file and renames it over the path, which would cut off a process already using it).
    private static func createExclusively(_ path: String) throws(EventLogError) {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            // The mode given to open() passes through the umask; the file must be 0600 whatever it is.
            fchmod(descriptor, 0o600)
            try? FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).close()
            // The new file's name is in its folder only once the folder is synced: without
            // this, a power cut after the first commit could leave no file at all. (SQLite
            // syncs the folder itself when it creates the `-wal`.)
            syncFolder(of: path)
            return
        }
        if errno == EEXIST { return }
        let reason = String(cString: strerror(errno))
        let folder = (path as NSString).deletingLastPathComponent
        throw .readOnly(path: path, detail: "cannot create the file in \(folder.isEmpty ? "." : folder): \(reason)")
    }

    /// Syncs the folder holding `path`, so that the entries made in it are durable. Best effort:
    /// a folder that cannot be opened or synced (some file systems refuse) is left as it is.
    private static func syncFolder(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let descriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        // (`close` here would be the log's own method.)
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? handle.close() }
        if fsync(descriptor) == 0 { folderSyncObserver.withLock { $0 }?(folder.isEmpty ? "." : folder) }
    }

    /// Tells `observer` of each folder whose entries a new log's creation made durable: the
    /// power-loss run's simulated file system (rewind-stress) keeps a new file across a cut
    /// only then.
    package static func observeFolderSyncs(_ observer: @escaping @Sendable (String) -> Void) {
        folderSyncObserver.withLock { $0 = observer }
    }

    private static let folderSyncObserver = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Sets SQLite's `synchronous` on this log's connection: only for the power-loss run's
    /// check that it catches a weaker setting (`rewind-stress power-loss --synchronous normal`).
    package func weakenSynchronousForTesting(_ level: String) throws {
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(level == "normal" ? "NORMAL" : "OFF")") }
    }

    /// Runs `body`, again after a short pause while it fails with `SQLITE_BUSY`, up to `limit`.
    private static func retryingWhileBusy<T>(for limit: Duration, _ body: () throws -> T) throws -> T {
        let deadline = ContinuousClock.now + limit
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    /// Whether SQLite could write the file and create its `-wal` and `-shm` files beside it.
    private static func isWritable(_ path: String) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        return FileManager.default.isWritableFile(atPath: path)
            && FileManager.default.isWritableFile(atPath: folder.isEmpty ? "." : folder)
    }

    /// Checks, through a read-only connection, that an existing file is a Rewind log this build
    /// can open. A SQLite database with no tables at all (a log whose creation was interrupted)
    /// passes, to be set up.
    private static func validate(_ file: String, path: String, header: LogFileHeader) throws(EventLogError) {
        try mappingErrors(path: path) {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(5)
            let probe = try DatabaseQueue(path: file, configuration: configuration)
            defer { try? probe.close() }
            try probe.read { db in
                let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                if applicationID == 0 && version == 0 {
                    let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                    if tables == 0 { return }
                }
                guard applicationID == LogFileHeader.applicationID else {
                    throw EventLogError.notARewindLog(path: path, applicationID: applicationID)
                }
                guard version <= SchemaMigrator.latestVersion else {
                    throw EventLogError.newerSchema(path: path, found: version, supported: SchemaMigrator.latestVersion)
                }
            }
        }
    }


    /// The schema version this build writes (the number of the last file in `Migrations/`).
    public static var latestSchemaVersion: Int { SchemaMigrator.latestVersion }

    /// The schema version of the log file. A log of an older version opened read-only keeps
    /// its version (it is read through a migrated copy; the file is never changed).
    public func schemaVersion() throws(EventLogError) -> Int {
        if readsMigratedCopy { return fileSchemaVersion }
        return try read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
    }

    /// The log's identity: a random UUID made when the file was created (or migrated to schema
    /// 9), kept by copies of the file and by an export and its import. A PostgreSQL store
    /// knows the sessions pushed from this log by it.
    ///
    /// A copy keeps it only until it is recorded into: the first session begun in a file other
    /// than the one the identity belongs to (another inode, or an import or pull) gives the log
    /// a new identity, so two copies recorded into are pushed as two logs (schema 12).
    ///
    /// - Returns: `nil` for a file older than schema 9 opened read-only: it has none yet, and
    ///   the migrated copy it is read through would give another each time it is opened. Open
    ///   it for writing once to give it one.
    public func identity() throws(EventLogError) -> UUID? {
        guard !readsMigratedCopy || fileSchemaVersion >= 9 else { return nil }
        let text = try read { db in try String.fetchOne(db, sql: "SELECT uuid FROM log_identity LIMIT 1") }
        guard let text, let uuid = UUID(uuidString: text) else {
            throw .corrupt(path: path, detail: "the log's identity is missing or not a UUID")
        }
        return uuid
    }

    /// A copy of an older log, migrated to the latest schema, in a temporary file that only
    /// its owner can read: how a log of an older schema is read without changing it. SQLite's
    /// backup copies a consistent snapshot, even while another process writes the file.
    ///
    /// The copy is unlinked once migrated (see ``MigratedCopies``): the connection reads it on,
    /// and nothing is left behind however the process ends.
    private static func migratedCopy(of file: DatabaseQueue, path: String) throws -> DatabaseQueue {
        let copyPath = MigratedCopies.newPath()
        MigratedCopies.begin(copyPath)
        defer { MigratedCopies.end(copyPath) }
        guard FileManager.default.createFile(atPath: copyPath, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw EventLogError.readOnly(path: path, detail: "cannot create a temporary copy to read this older log through at \(copyPath)")
        }
        do {
            var configuration = Configuration()
            configuration.label = "RewindLog (migrated copy)"
            let copy = try DatabaseQueue(path: copyPath, configuration: configuration)
            try file.backup(to: copy)
            try file.close()
            try copy.writeWithoutTransaction { db in try SchemaMigrator.migrate(db, path: path) }
            // Only reads follow, which SQLite serves from the open descriptor; a write would
            // fail (SQLITE_READONLY_DBMOVED) rather than go astray.
            MigratedCopies.remove(copyPath)
            return copy
        } catch {
            MigratedCopies.remove(copyPath)
            throw error
        }
    }

    /// Deletes the temporary copies older logs are being read through right now (the others
    /// are unlinked already): for a tool's SIGINT or SIGTERM handler, just before it exits.
    package static func removeTemporaryCopies() {
        MigratedCopies.removeInFlight()
    }

    deinit {
        guard let ownedFile else { return }
        try? database.close()
        Self.removeFile(ownedFile)
    }

    /// Deletes a log file this process made, with SQLite's files beside it.
    private static func removeFile(_ file: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: file + suffix)
        }
    }

    /// Closes the database connection. Further use throws `EventLogError.closed(path:)`.
    /// Sessions it began and did not end (``endSession(_:at:)``) are no longer live: the next
    /// writer marks them ended uncleanly.
    public func close() throws(EventLogError) {
        try mappingErrors(path: path) { try database.close() }
        sessionLocks.withLock { $0.removeAll() }
    }

    /// Reads in one transaction, mapping errors.
    func read<T>(_ body: (Database) throws -> T) throws(EventLogError) -> T {
        try mappingErrors(path: path) { try inReadTransaction(body) }
    }

    /// Runs `body` in a read transaction: its own, or the one a consistent reader holds open
    /// around everything it reads (``readingConsistently(_:)``), on its connection's queue.
    func inReadTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        holdsOneSnapshot.withLock { $0 } ? try database.unsafeReentrantRead(body) : try database.read(body)
    }

    /// Whether this log was opened to read one moment of its file: every read runs inside the
    /// read transaction ``readingConsistently(_:)`` holds open.
    let holdsOneSnapshot = Mutex(false)

    /// Calls `body` with a second, read-only connection to the file held in one read
    /// transaction: it sees the log as it was when the call began, whatever this or other
    /// processes write or trim meanwhile. A log read through a copy (an older schema's, or a
    /// fixture's) passes itself: nothing else writes the copy. `body` runs on that connection's
    /// queue: it reads the log it is given from this thread only.
    public func readingConsistently<T>(_ body: (any LogReader) throws(EventLogError) -> T) throws(EventLogError) -> T {
        guard !readsMigratedCopy, ownedFile == nil else { return try body(self) }
        let moment = try EventLog(path: path, file: fileOnDisk, ownsFile: false, mode: .readOnly, codecs: codecs, keys: keys)
        defer { try? moment.close() }
        guard !moment.readsMigratedCopy else { return try body(moment) }
        moment.holdsOneSnapshot.withLock { $0 = true }
        return try mappingErrors(path: path) {
            try moment.database.inDatabase { db in
                try db.execute(sql: "BEGIN DEFERRED")
                defer { try? db.execute(sql: "COMMIT") }
                // A deferred transaction's snapshot is taken at its first read.
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions")
                return try body(moment)
            }
        }
    }

    /// Writes in one transaction in which payloads are encoded: symbols other writers added are
    /// read first, so new ones get ids no one else has, and the new ones are stored in the same
    /// transaction as the payloads that use them.
    func writeEncoding<T>(_ body: (Database) throws -> T) throws(EventLogError) -> T {
        try write { db in
            try refreshSymbols(db)
            let result = try body(db)
            try persistSymbols(db)
            return result
        }
    }

    /// Every symbol the log's binary payloads use (coding keys by number), in order: for what
    /// copies a log's payloads byte for byte elsewhere (export, a push into another store).
    public func storedSymbols() throws(EventLogError) -> [CodecSymbol] {
        try read { db in try Self.symbols(db, after: 0) }
    }

    static func symbols(_ db: Database, after known: Int64) throws -> [CodecSymbol] {
        guard try db.tableExists("symbols") else { return [] }
        return try Row.fetchAll(db, sql: "SELECT id, name FROM symbols WHERE id > ? ORDER BY id", arguments: [known]).map { row in
            CodecSymbol(id: try row.required("id", in: "symbols"), name: try row.required("name", in: "symbols"))
        }
    }

    /// Teaches the codecs the symbols stored since the last look. Call inside a transaction that
    /// also reads the payloads, so both come from the same snapshot of the file.
    func refreshSymbols(_ db: Database) throws {
        let known = symbolWatermark.withLock { $0 }
        let symbols = try Self.symbols(db, after: known)
        guard !symbols.isEmpty else { return }
        do {
            for codec in codecs.interning { try codec.learn(symbols) }
        } catch let damage as SymbolTableDamage {
            throw EventLogError.corrupt(path: path, detail: damage.description)
        }
        let last = symbols.last?.id ?? known
        symbolWatermark.withLock { $0 = max($0, last) }
    }

    private func persistSymbols(_ db: Database) throws {
        for codec in codecs.interning {
            let pending = codec.unpersistedSymbols()
            guard let last = pending.last?.id else { continue }
            for symbol in pending {
                try db.execute(sql: "INSERT INTO symbols (id, name) VALUES (?, ?)", arguments: [symbol.id, symbol.name])
            }
            // A rollback is handled by `write`, with everything else the transaction interned.
            db.afterNextTransaction { [self] _ in
                codec.markPersisted(upTo: last)
                symbolWatermark.withLock { $0 = max($0, last) }
            }
        }
    }

    /// Writes in one transaction, mapping errors. When it fails, everything interned in it is
    /// forgotten — source and action ids, codec symbols — whether the failure came before or
    /// after they were stored: the rollback took their rows, and another writer may give those
    /// ids to other names.
    func write<T>(_ body: (Database) throws -> T) throws(EventLogError) -> T {
        guard mode == .readWrite else { throw .readOnly(path: path, detail: "the log was opened read-only") }
        do {
            return try mappingErrors(path: path) { try database.write(body) }
        } catch {
            forgetInterned()
            throw error
        }
    }

    /// The one rollback hook of the interning caches.
    func forgetInterned() {
        sources.forget()
        actions.forget()
        sharedPayloads.forget()
        for codec in codecs.interning { codec.forgetUnpersistedSymbols() }
    }
}
