public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder where sealed reports wait until they are delivered: by default beside the log
/// (`<log>-reports`), readable by its owner only.
///
/// - A report is written to a temporary name, synced, and renamed into place (then the folder
///   synced): a crash or a full disk while sealing leaves the earlier reports as they were, and
///   no half report among them (a leftover temporary file is removed by the next ``add(_:held:now:)``).
/// - It is bounded: at most ``maxCount`` reports and ``maxBytes`` bytes. Adding one past a bound
///   deletes the oldest first; those dropped are counted (``dropped``), never silently lost.
/// - Reports older than ``maxAge`` are deleted by the next ``add(_:held:now:)`` or
///   ``removeExpired(now:)``, and counted as dropped too.
/// - A report is otherwise deleted only by ``delivered(_:)``, once the app has sent it, or
///   ``decline(_:)``, when the user said no.
/// - A report sealed while ``ReportOptions/consent`` is ``ReportConsent/askFirst`` is held:
///   ``reports()`` leaves it out, ``heldReports()`` lists it, until ``grant(_:)`` makes it
///   ready. What an uploader sends is ``reports()``, so it honours the user's answer.
///
/// ```swift
/// if let outbox = recorder.outbox {
///     for report in outbox.reports() {
///         try await upload(Data(contentsOf: report))
///         outbox.delivered(report)
///     }
/// }
/// ```
///
/// The report and the folder are synced with `fsync` (not `F_FULLFSYNC` on Apple platforms: a
/// report is not a commit). No power-cut test covers the outbox: what is tested is a write that
/// fails midway (the earlier reports stay whole, no half report is left) and the bounds.
public struct ReportOutbox: Sendable, Hashable {
    /// The folder.
    public var folder: URL
    /// The most reports kept: 20 by default.
    public var maxCount = 20
    /// The most bytes of reports kept: 5 MiB by default (ten reports at their default bound).
    public var maxBytes = 5 << 20
    /// How long a report waits for delivery: 30 days by default.
    public var maxAge: TimeInterval = 30 * 24 * 3600

    /// The report files' extension.
    public static let fileExtension = "rwreport"
    private static let partialSuffix = ".partial"
    /// Added to a report's name while it waits for consent.
    private static let heldSuffix = ".held"
    private static let droppedFile = "dropped"

    /// An outbox in `folder`.
    public init(folder: URL) {
        self.folder = folder
    }

    /// The outbox beside the log file at `path`: `<path>-reports`.
    public init(besideLog path: String) {
        self.init(folder: URL(fileURLWithPath: path + "-reports"))
    }

    /// The reports ready to send, oldest first: not held for the user's consent.
    public func reports() -> [URL] {
        entries().filter { !$0.held }.map(\.url)
    }

    /// The reports held until the user agrees to send them (``ReportConsent/askFirst``),
    /// oldest first.
    public func heldReports() -> [URL] {
        entries().filter(\.held).map(\.url)
    }

    /// Makes a held report ready to send, and returns its file as ``reports()`` lists it.
    ///
    /// - Throws: `EventLogError` when it is not a held report of this outbox, or cannot be renamed.
    @discardableResult
    public func grant(_ report: URL) throws(EventLogError) -> URL {
        let name = report.lastPathComponent
        guard holds(report), name.hasSuffix(Self.heldSuffix) else {
            throw .failed(path: report.path, reason: "not a report this outbox holds for consent")
        }
        let ready = folder.appendingPathComponent(String(name.dropLast(Self.heldSuffix.count)))
        guard rename(report.path, ready.path) == 0 else { throw Self.failure(folder.path, errno) }
        Self.syncFolder(folder.path)
        return ready
    }

    /// Makes every held report ready to send (the user agreed to all); returns them.
    ///
    /// - Throws: The first report that could not be made ready; those before it are.
    @discardableResult
    public func grantAll() throws(EventLogError) -> [URL] {
        var granted: [URL] = []
        for report in heldReports() { granted.append(try grant(report)) }
        return granted
    }

    /// Deletes a report the user does not want sent (held or ready). Not counted as dropped. A
    /// file that is not one of this outbox's reports is left alone.
    public func decline(_ report: URL) {
        guard holds(report) else { return }
        try? FileManager.default.removeItem(at: report)
    }

    /// Whether `url` names a report (ready or held) in this outbox's folder.
    private func holds(_ url: URL) -> Bool {
        let name = url.lastPathComponent, ready = "." + Self.fileExtension
        return url.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path
            && (name.hasSuffix(ready) || name.hasSuffix(ready + Self.heldSuffix))
    }

    /// How many reports were dropped to keep the bounds, or expired, since the outbox began.
    public var dropped: Int {
        guard let text = try? String(contentsOf: folder.appendingPathComponent(Self.droppedFile), encoding: .utf8) else { return 0 }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Adds a sealed report, then keeps the bounds.
    ///
    /// - Parameters:
    ///   - report: The sealed report's bytes.
    ///   - held: Whether it waits for the user's consent (``heldReports()``) rather than being
    ///     ready to send (``reports()``).
    ///   - now: The time it is added at, which orders and expires it.
    /// - Returns: The report's file.
    /// - Throws: `EventLogError` when the folder or the file cannot be written (a full disk):
    ///   nothing is left of this report, and the earlier ones are untouched.
    @discardableResult
    public func add(_ report: Data, held: Bool = false, now: Date = Date()) throws(EventLogError) -> URL {
        let path = folder.path
        try makeFolder()
        // Named by time, so that names sort oldest first; the UUID keeps two in one millisecond apart.
        let name = String(format: "%015lld-", Int64((now.timeIntervalSince1970 * 1000).rounded(.down))) + UUID().uuidString + "." + Self.fileExtension
            + (held ? Self.heldSuffix : "")
        let final = folder.appendingPathComponent(name)
        let partial = final.path + ".\(getpid())" + Self.partialSuffix
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure(path, errno) }
        var written = 0
        var code: Int32 = 0
        report.withUnsafeBytes { bytes in
            while written < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 { if errno == EINTR { continue }; code = errno; return }
                written += count
            }
            if fsync(descriptor) != 0 { code = errno }
        }
        close(descriptor)
        guard code == 0, rename(partial, final.path) == 0 else {
            let failure = code != 0 ? code : errno
            unlink(partial)
            throw Self.failure(path, failure)
        }
        Self.syncFolder(path)
        keepBounds(keeping: final, now: now)
        return final
    }

    /// Deletes a report once it has been delivered. A file that is not one of this outbox's
    /// reports is left alone.
    public func delivered(_ report: URL) {
        guard holds(report) else { return }
        try? FileManager.default.removeItem(at: report)
    }

    /// Deletes the reports older than ``maxAge``, counting them as dropped.
    public func removeExpired(now: Date = Date()) {
        keepBounds(keeping: nil, now: now)
    }

    /// Creates the folder (owner-only) if it is not there, removing what a killed process left
    /// half-written in it.
    package func makeFolder() throws(EventLogError) {
        if mkdir(folder.path, 0o700) != 0 && errno != EEXIST {
            throw .readOnly(path: folder.path, detail: "cannot create the report outbox (\(String(cString: strerror(errno))))")
        }
        removePartials()
    }

    /// A name in the folder for a temporary file of this process, which ``makeFolder()`` in a
    /// later process removes if it is left behind.
    package func temporaryFile() -> URL {
        folder.appendingPathComponent("sealing-\(UUID().uuidString).\(getpid())" + Self.partialSuffix)
    }

    // MARK: - Inside

    private struct Entry {
        var url: URL
        var time: Double
        var size: Int
        var held: Bool
    }

    /// The reports, ready and held, oldest first (by the time in their names).
    private func entries() -> [Entry] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        let ready = "." + Self.fileExtension, held = ready + Self.heldSuffix
        return names.filter { $0.hasSuffix(ready) || $0.hasSuffix(held) }.sorted().map { name in
            let url = folder.appendingPathComponent(name)
            let size = ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
            let time = Double(name.prefix { $0.isNumber }).map { $0 / 1000 } ?? 0
            return Entry(url: url, time: time, size: size, held: name.hasSuffix(held))
        }
    }

    /// Deletes expired reports, then the oldest while a bound is passed (never `keeping`).
    private func keepBounds(keeping: URL?, now: Date) {
        var entries = entries()
        var dropped = 0
        let oldest = now.timeIntervalSince1970 - maxAge
        for entry in entries where entry.time < oldest && entry.url != keeping {
            try? FileManager.default.removeItem(at: entry.url)
            dropped += 1
        }
        entries.removeAll { $0.time < oldest && $0.url != keeping }
        while entries.count > max(maxCount, 1) || (entries.reduce(0) { $0 + $1.size } > maxBytes && entries.count > 1) {
            guard let index = entries.firstIndex(where: { $0.url != keeping }) else { break }
            try? FileManager.default.removeItem(at: entries[index].url)
            entries.remove(at: index)
            dropped += 1
        }
        guard dropped > 0 else { return }
        // Counted in a small file, replaced whole (a crash keeps the old count or the new one).
        let counter = folder.appendingPathComponent(Self.droppedFile)
        try? Data("\(self.dropped + dropped)\n".utf8).write(to: counter, options: .atomic)
    }

    /// Deletes temporary files a process killed mid-write left (named by its process id; a
    /// process still running, another writer of the same log, is left to finish).
    private func removePartials() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasSuffix(Self.partialSuffix) {
            let pid = pid_t(name.dropLast(Self.partialSuffix.count).split(separator: ".").last ?? "") ?? 0
            // ESRCH: no such process. EPERM: another user's, alive.
            if pid <= 0 || (pid != getpid() && kill(pid, 0) == -1 && errno == ESRCH) {
                unlink(folder.appendingPathComponent(name).path)
            }
        }
    }

    private static func syncFolder(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func failure(_ path: String, _ code: Int32) -> EventLogError {
        code == ENOSPC || code == EDQUOT ? .diskFull(path: path) : .failed(path: path, reason: "cannot write a report to the outbox (\(String(cString: strerror(code))))")
    }
}
