import Foundation
import RewindLog

/// What opening a report with the team's key adds to its triage — its signature (crash site, a
/// sealed trigger) and the fingerprints of the types it was recorded with — kept beside the
/// reports by the SHA-256 of each report's bytes, so that `rewind reports --key-file` (and the
/// inspector's Reports view, which lists on every load) opens each report once, not on every
/// listing.
///
/// Where: beside a folder of reports, `FOLDER/.rewind-triage.json`; beside a collector's SQLite
/// store, `STORE-triage.json`; a PostgreSQL store's in the user's cache folder
/// (`$XDG_CACHE_HOME`, or `~/.cache`: `rewind/triage-<SHA-256 of the store's name>.json`).
/// Owner-only, written whole (a temporary file renamed over it), and holding only the reports
/// the last listing saw (a deleted report's entry goes with the next listing). One that cannot
/// be read is ignored and made again; one that cannot be written is not kept. An entry is used
/// only with a key file that holds the report's key id.
final class TriageCache {
    /// One opened report's part of the triage.
    struct Entry: Codable {
        var signature: ReportSignature
        var actionFingerprint: String?
        var stateFingerprint: String?
    }

    private struct File: Codable {
        var version = 1
        var entries: [String: Entry]
    }

    let path: String
    private var entries: [String: Entry]
    /// The digests asked about since the cache was read: what ``save()`` keeps.
    private var seen: Set<String> = []
    private var changed = false

    /// The cache for the reports `location` names (a folder, or a collector's store); `nil` for
    /// a single report file (nothing to gain).
    static func beside(_ location: String, storeName: String?) -> TriageCache? {
        if let storeName {
            if !CollectorStores.isURL(location) { return TriageCache(path: location + "-triage.json") }
            let environment = ProcessInfo.processInfo.environment
            let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? (NSHomeDirectory() as NSString).appendingPathComponent(".cache")
            let digest = ReportDigest.hex(of: Data(storeName.utf8))
            return TriageCache(path: (base as NSString).appendingPathComponent("rewind/triage-\(digest).json"))
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location, isDirectory: &isFolder), isFolder.boolValue else { return nil }
        return TriageCache(path: (location as NSString).appendingPathComponent(".rewind-triage.json"))
    }

    init(path: String) {
        self.path = path
        let file = FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(File.self, from: $0) }
        entries = file?.version == 1 ? file?.entries ?? [:] : [:]
    }

    subscript(digest: String) -> Entry? {
        get {
            seen.insert(digest)
            return entries[digest]
        }
        set {
            seen.insert(digest)
            entries[digest] = newValue
            changed = true
        }
    }

    /// Writes the cache when it changed, with the entries of the reports seen only: owner-only,
    /// whole or not at all.
    func save() {
        let kept = entries.filter { seen.contains($0.key) }
        guard changed || kept.count != entries.count, let data = try? JSONEncoder().encode(File(entries: kept)) else { return }
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temporary, path) != 0 { try? FileManager.default.removeItem(atPath: temporary) }
        changed = false
    }
}
