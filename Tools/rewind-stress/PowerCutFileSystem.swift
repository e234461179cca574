import Foundation
import GRDBSQLite
import RewindLog
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A SQLite VFS that simulates a power cut, the way SQLite's own crash tests do: writes reach
/// the real files at once (so SQLite behaves as usual), but only what an `xSync` made durable
/// survives the cut. At every sync of a watched file (the log and its `-wal`), the file's
/// content is copied to `<file>.durable`; at the chosen write, the process ends on the spot
/// with ``exitCode``, before that write. The parent then puts each watched file back to its
/// durable copy (or removes it, if it was never synced) and drops the `-shm`: what a machine
/// finds after losing power mid-write.
///
/// A file's name is durable apart from its content: a file created since the process started
/// survives a cut only once its folder was synced (SQLite syncs it when it creates a `-wal`,
/// seen here at the `-wal`'s first sync; Rewind when it creates a log, seen through
/// `EventLog.observeFolderSyncs`). Until then the cut removes it whole: `<file>.entry` marks a
/// durable name.
///
/// Written by hand: it is test machinery wrapping the C API, and no package offers it. It
/// wraps the platform's default VFS and is registered as the default, so every connection of
/// the (child) process goes through it.
enum PowerCutFileSystem {
    /// How a child ends at the cut.
    static let exitCode: Int32 = 75

    private struct Watch {
        var paths: Set<String> = []
        /// Writes (and truncations) to watched files so far, and the one that cuts the power.
        var writes = 0
        var cutAt = Int.max
        // Pointers are kept as addresses, which are Sendable; they point at SQLite's static
        // method tables and at tables this VFS allocates once and never frees.
        /// The real methods of each open file, by the file's address.
        var realMethods: [UInt: UInt] = [:]
        /// The watched path of each open file, by the file's address.
        var openPaths: [UInt: String] = [:]
        /// Our method tables, one per real table.
        var ourMethods: [UInt: UInt] = [:]
    }

    // The C callbacks cannot capture context: the state is global, behind a lock.
    private static let watch = Mutex(Watch())
    nonisolated(unsafe) private static var real: UnsafeMutablePointer<sqlite3_vfs>?

    /// Registers the VFS as the process's default, watching `log` and its `-wal`, cutting the
    /// power before the `cutAt`-th write to them (counted from 1).
    static func install(log: String, cutAt: Int) {
        let path = URL(fileURLWithPath: log).standardizedFileURL.path
        watch.withLock { watch in
            watch.paths = [path, path + "-wal"]
            watch.cutAt = cutAt
        }
        // Files that already exist were durable when this process started, names and all.
        for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
            makeDurable(file)
            markEntryDurable(file)
        }
        EventLog.observeFolderSyncs { folder in
            let synced = URL(fileURLWithPath: folder).standardizedFileURL.path
            for file in [path, path + "-wal"] where (file as NSString).deletingLastPathComponent == synced {
                if FileManager.default.fileExists(atPath: file) { PowerCutFileSystem.markEntryDurable(file) }
            }
        }
        guard let base = sqlite3_vfs_find(nil) else { fatalError("no default SQLite VFS") }
        real = base
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: base.pointee)
        vfs.pointee.zName = UnsafePointer(strdup("rewind-power-cut"))
        vfs.pointee.pNext = nil
        vfs.pointee.xOpen = { _, name, file, flags, outFlags in
            guard let real = PowerCutFileSystem.real else { return SQLITE_ERROR }
            let rc = real.pointee.xOpen(real, name, file, flags, outFlags)
            guard rc == SQLITE_OK, let file, let methods = file.pointee.pMethods, let name else { return rc }
            let path = URL(fileURLWithPath: String(cString: name)).standardizedFileURL.path
            let address = UInt(bitPattern: file)
            let realAddress = UInt(bitPattern: methods)
            let ours: UInt? = PowerCutFileSystem.watch.withLock { watch in
                guard watch.paths.contains(path) else { return nil }
                watch.realMethods[address] = realAddress
                watch.openPaths[address] = path
                return PowerCutFileSystem.methods(wrapping: realAddress, in: &watch)
            }
            if let ours { file.pointee.pMethods = UnsafePointer(bitPattern: ours) }
            return rc
        }
        vfs.pointee.xDelete = { _, name, syncDirectory in
            guard let real = PowerCutFileSystem.real else { return SQLITE_ERROR }
            if let name {
                // A deletion is taken as durable: the durable copy and name go with the file.
                unlink(String(cString: name) + ".durable")
                unlink(String(cString: name) + ".entry")
            }
            return real.pointee.xDelete(real, name, syncDirectory)
        }
        sqlite3_vfs_register(vfs, 1)
    }

    /// Copies `path` to `path.durable`: what a power cut would leave of it now.
    private static func makeDurable(_ path: String) {
        let durable = path + ".durable"
        unlink(durable)
        _ = try? FileManager.default.copyItem(atPath: path, toPath: durable)
    }

    /// Marks `path`'s name as durable: its folder was synced since it was created.
    private static func markEntryDurable(_ path: String) {
        _ = FileManager.default.createFile(atPath: path + ".entry", contents: nil)
    }

    /// Counts a write to a watched file; cuts the power when it is the chosen one.
    private static func countWrite() {
        let cut = watch.withLock { watch in
            watch.writes += 1
            return watch.writes >= watch.cutAt
        }
        if cut {
            // When the power went, for the parent's measure of what was lost (see ChildReport).
            FileHandle.standardOutput.write(Data("cut \(ChildReport.now)\n".utf8))
            _exit(exitCode)
        }
    }

    private static func realMethods(of file: UnsafeMutablePointer<sqlite3_file>?) -> (UnsafePointer<sqlite3_io_methods>, String)? {
        guard let file else { return nil }
        return watch.withLock { watch in
            let address = UInt(bitPattern: file)
            guard let methods = watch.realMethods[address].flatMap(UnsafePointer<sqlite3_io_methods>.init(bitPattern:)),
                  let path = watch.openPaths[address] else { return nil }
            return (methods, path)
        }
    }

    /// A copy of `real` whose write, truncate, sync and close go through this VFS first; the
    /// other methods are the real ones, called with the same file (it is the real file).
    private static func methods(wrapping realAddress: UInt, in watch: inout Watch) -> UInt {
        if let ours = watch.ourMethods[realAddress] { return ours }
        guard let real = UnsafePointer<sqlite3_io_methods>(bitPattern: realAddress) else { return realAddress }
        let ours = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        ours.initialize(to: real.pointee)
        ours.pointee.xWrite = { file, buffer, amount, offset in
            guard let (real, _) = PowerCutFileSystem.realMethods(of: file) else { return SQLITE_IOERR }
            PowerCutFileSystem.countWrite()
            return real.pointee.xWrite(file, buffer, amount, offset)
        }
        ours.pointee.xTruncate = { file, size in
            guard let (real, _) = PowerCutFileSystem.realMethods(of: file) else { return SQLITE_IOERR }
            PowerCutFileSystem.countWrite()
            return real.pointee.xTruncate(file, size)
        }
        ours.pointee.xSync = { file, flags in
            guard let (real, path) = PowerCutFileSystem.realMethods(of: file) else { return SQLITE_IOERR }
            let rc = real.pointee.xSync(file, flags)
            if rc == SQLITE_OK {
                PowerCutFileSystem.makeDurable(path)
                // SQLite's unix VFS syncs the folder at the first sync of a `-wal` it created;
                // a main database file's name it leaves to whoever created the file.
                if path.hasSuffix("-wal") { PowerCutFileSystem.markEntryDurable(path) }
            }
            return rc
        }
        ours.pointee.xClose = { file in
            guard let (real, _) = PowerCutFileSystem.realMethods(of: file) else { return SQLITE_IOERR }
            PowerCutFileSystem.watch.withLock { watch in
                watch.realMethods[UInt(bitPattern: file)] = nil
                watch.openPaths[UInt(bitPattern: file)] = nil
            }
            return real.pointee.xClose(file)
        }
        watch.ourMethods[realAddress] = UInt(bitPattern: ours)
        return UInt(bitPattern: ours)
    }

    /// After a child was cut off: puts the log and its `-wal` back to what their last sync made
    /// durable (removing a file never synced, or whose name never was) and removes the `-shm`,
    /// as after a reboot.
    static func restoreAfterCut(log: String) throws {
        for path in [log, log + "-wal"] {
            let durable = path + ".durable"
            unlink(path)
            if FileManager.default.fileExists(atPath: durable) && FileManager.default.fileExists(atPath: path + ".entry") {
                try FileManager.default.moveItem(atPath: durable, toPath: path)
            }
            unlink(durable)
            unlink(path + ".entry")
        }
        unlink(log + "-shm")
    }

    /// Removes the durable copies and name marks a child left when it ended without a cut.
    static func discardDurableCopies(log: String) {
        for path in [log, log + "-wal"] {
            unlink(path + ".durable")
            unlink(path + ".entry")
        }
    }
}
