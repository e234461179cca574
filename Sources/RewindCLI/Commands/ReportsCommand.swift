import ArgumentParser
import Foundation
import Rewind
import RewindLog

/// `rewind reports PATH… [--key-file KEYS]`: a pile of reports grouped by bug.
struct ReportsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports",
        abstract: "Group report files by signature: one line per distinct bug, with counts, versions and when seen.",
        discussion: """
            PATH is a report file, a folder of them (an outbox copied off a device), or a \
            collector's store (`rewind collect --store`: its SQLite file or postgres:// URL), \
            whose reports are named STORE#ID (`rewind report fetch STORE ID` writes one out). Reports are grouped by signature (ReportSignature): the reason — \
            signal, invariant, hung or error action — and the trigger's case and source line, from \
            the clear header. With --key-file each report is opened too, which adds a crash's site \
            (image and offset), a sealed trigger, and the fingerprints of the types it was \
            recorded with; what opening adds is cached beside the reports (FOLDER/.rewind-triage.json, \
            STORE-triage.json, or for PostgreSQL in ~/.cache/rewind), so each report is opened once. \
            Files that are not reports are listed apart, never fatal.
            """
    )

    @Argument(help: "Report files, or folders holding them.") var paths: [String]
    @Option(name: .customLong("key-file"), help: ArgumentHelp("The team's private key (a key file): group by crash site too.", valueName: "path"))
    var keyFile: String?
    @OptionGroup var format: OutputFormat

    func run() async throws {
        try format.print(try await Self.triage(paths, keyFile: keyFile))
    }

    /// The reports `paths` name, grouped; `progress` is told of each report read (done, of).
    /// The inspector's Reports view answers with this too.
    ///
    /// A store's reports are grouped by the header it keeps, without reading their bytes; with
    /// `keyFile`, each report is opened once, and what that adds kept in a ``TriageCache``
    /// beside the reports.
    static func triage(_ paths: [String], keyFile: String?, progress: (Int, Int) -> Void = { _, _ in }) async throws -> Report {
        let keys = try keyFile.map { try LogOptions.keys(keyFile: $0) }
        var groups: [ReportSignature: Group] = [:]
        var unreadable: [Unreadable] = []
        var caches: [String: TriageCache?] = [:]
        let (reports, stores) = try await Self.reports(in: paths)
        for (index, item) in reports.enumerated() {
            progress(index, reports.count)
            do throws(EventLogError) {
                var report: FieldReport?
                let header: ReportHeader, digest: String
                if let stored = item.stored {
                    (header, digest) = (stored.header, stored.digest)
                } else {
                    let read = try await item.read()
                    (report, header, digest) = (read, read.header, ReportDigest.hex(of: read.bytes))
                }
                var signature = ReportSignature(header: header)
                var fingerprints: (action: String?, state: String?) = (nil, nil)
                if let keys {
                    if caches[item.location] == nil { caches[item.location] = TriageCache.beside(item.location, storeName: item.storeName) }
                    let cache = caches[item.location] ?? nil
                    if keys[header.keyID] != nil, let entry = cache?[digest] {
                        signature = entry.signature
                        fingerprints = (entry.actionFingerprint, entry.stateFingerprint)
                    } else {
                        let opening: FieldReport
                        if let report { opening = report } else { opening = try await item.read() }
                        let opened = Self.opened(try opening.open(with: keys))
                        signature = ReportSignature(header: header, details: opened.details, trigger: opened.trigger)
                        fingerprints = (opened.shapes?.action?.fingerprint, opened.shapes?.state?.fingerprint)
                        cache?[digest] = TriageCache.Entry(signature: signature, actionFingerprint: fingerprints.action, stateFingerprint: fingerprints.state)
                    }
                }
                groups[signature, default: Group(signature: signature, representative: item.name)].add(header, fingerprints: fingerprints, file: item.name)
            } catch {
                // Its description begins with the path, which the listing shows already.
                let reason = error.description
                unreadable.append(Unreadable(file: item.name, reason: reason.hasPrefix(item.name + ": ") ? String(reason.dropFirst(item.name.count + 2)) : reason))
            }
        }
        // postgres-nio requires its connections closed before they go.
        for store in stores { await store.close() }
        for case let cache? in caches.values { cache.save() }
        let sorted = groups.values.sorted { ($0.count, $1.signature) > ($1.count, $0.signature) }
        return Report(groups: sorted, unreadable: unreadable)
    }

    /// An opened report's details; the shapes its session was recorded with (from its export's
    /// session line), whose fingerprints say which build replays it; and its trigger event's
    /// case and source (from the export's events), for a report whose header seals them.
    static func opened(_ content: (details: ReportDetails, export: Data)) -> (details: ReportDetails, shapes: SessionShapes?, trigger: (action: String, source: ActionSource)?) {
        var shapes: SessionShapes?, trigger: (action: String, source: ActionSource)?
        let decoder = JSONDecoder()
        for line in content.export.split(separator: 0x0A) {
            guard let type = try? decoder.decode(PortableLog.LineType.self, from: line) else { continue }
            if type.type == "session", shapes == nil {
                shapes = (try? decoder.decode(PortableLog.SessionLine.self, from: line))?.shapes
            } else if type.type == "event", let seq = content.details.triggerSeq, trigger == nil,
                let event = try? decoder.decode(PortableLog.EventLine.self, from: line), event.seq == seq {
                trigger = (event.action, event.source)
            }
        }
        return (content.details, shapes, trigger)
    }

    /// One report to triage: its name, the path argument it came from, and how to read it; a
    /// store's with its header and digest as stored, so that listing it reads no bytes.
    struct Listed: Sendable {
        var name: String
        /// The path argument it came from (a file, a folder, a store).
        var location: String
        /// The store's name, for a store's report.
        var storeName: String?
        var stored: CollectedReport?
        var read: @Sendable () async throws(EventLogError) -> FieldReport
    }

    /// The reports `paths` name, each with how to read it: files as given, folders'
    /// `.rwreport` files (held ones too), a collector's stored reports (`STORE#ID`).
    /// The stores opened are returned too: the caller closes them once it has read the reports.
    static func reports(in paths: [String]) async throws -> (reports: [Listed], stores: [any CollectorStore]) {
        var reports: [Listed] = []
        var stores: [any CollectorStore] = []
        for path in paths {
            var isFolder: ObjCBool = false
            if CollectorStores.isURL(path) || ReportStore.isStore(at: path) {
                let store = try await CollectorStores.open(path)
                stores.append(store)
                let stored: [CollectedReport]
                do { stored = try await store.allReports() } catch {
                    for store in stores { await store.close() }
                    throw InputError("\(error)")
                }
                // Named without a URL's password (the store's name), read one at a time.
                reports += stored.map { entry in
                    let name = "\(store.name)#\(entry.id)"
                    return Listed(name: name, location: path, storeName: store.name, stored: entry) { () async throws(EventLogError) -> FieldReport in
                        guard let bytes = try await store.bytes(id: entry.id) else { throw .unreadableReport(path: name, reason: "deleted since listed") }
                        return try FieldReport(bytes: bytes, path: name)
                    }
                }
                continue
            }
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                for store in stores { await store.close() }
                throw InputError("\(path): no such file or folder")
            }
            var files = [path]
            if isFolder.boolValue {
                let names: [String]
                do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
                    for store in stores { await store.close() }
                    throw InputError("\(path): the folder cannot be read (\(error.localizedDescription))")
                }
                files = names.sorted()
                    .filter { $0.hasSuffix(".\(ReportOutbox.fileExtension)") || $0.hasSuffix(".\(ReportOutbox.fileExtension).held") }
                    .map { (path as NSString).appendingPathComponent($0) }
            }
            reports += files.map { file in
                Listed(name: file, location: path) { () async throws(EventLogError) -> FieldReport in try FieldReport(contentsOf: file) }
            }
        }
        return (reports, stores)
    }
}

extension ReportsCommand {
    /// A build a report needs to replay: the app version and schema versions from the clear
    /// header; the fingerprints of the types its session was recorded with, once opened.
    struct Build: Encodable, Hashable, Comparable {
        var version: String
        var actionSchemaVersion: Int
        var stateSchemaVersion: Int
        var actionFingerprint: String?
        var stateFingerprint: String?
        var reports = 0

        var key: [String] {
            [version, "\(actionSchemaVersion)", "\(stateSchemaVersion)", actionFingerprint ?? "", stateFingerprint ?? ""]
        }

        static func < (lhs: Build, rhs: Build) -> Bool { lhs.key.lexicographicallyPrecedes(rhs.key) }

        /// `1.4 (schemas 1/1, fingerprints 3f9c2a61…/7a1b09e2…)`.
        var description: String {
            var text = "\(version.ifEmpty("—")) (schemas \(actionSchemaVersion)/\(stateSchemaVersion)"
            if let actionFingerprint, let stateFingerprint { text += ", fingerprints \(actionFingerprint.prefix(8))…/\(stateFingerprint.prefix(8))…" }
            return text + ")"
        }
    }

    /// The reports of one signature.
    struct Group: Encodable {
        var signature: ReportSignature
        /// The signature as one line (`crash (SIGSEGV) · cart.checkout at Shop/CartView.swift:42`).
        var summary: String
        var count = 0
        /// Reports per app version.
        var versions: [String: Int] = [:]
        /// The builds that replay the group's reports, with how many each (a replay tool per
        /// release: a report replays only with its own version's reducer).
        var builds: [Build] = []
        var firstSeen = Double.infinity
        var lastSeen = -Double.infinity
        /// One report of the group, to open first: the first seen.
        var representative: String
        /// Every report of the group, as the listing names them (`STORE#ID` for a store's).
        var reports: [String] = []

        init(signature: ReportSignature, representative: String) {
            (self.signature, self.summary, self.representative) = (signature, signature.description, representative)
        }

        mutating func add(_ header: ReportHeader, fingerprints: (action: String?, state: String?), file: String) {
            count += 1
            reports.append(file)
            versions[header.app.version, default: 0] += 1
            var build = Build(
                version: header.app.version, actionSchemaVersion: header.app.actionSchemaVersion, stateSchemaVersion: header.app.stateSchemaVersion,
                actionFingerprint: fingerprints.action, stateFingerprint: fingerprints.state
            )
            if let index = builds.firstIndex(where: { $0.key == build.key }) {
                builds[index].reports += 1
            } else {
                build.reports = 1
                builds.append(build)
                builds.sort()
            }
            if header.createdAt < firstSeen { (firstSeen, representative) = (header.createdAt, file) }
            lastSeen = max(lastSeen, header.createdAt)
        }
    }

    struct Unreadable: Encodable {
        var file: String
        var reason: String
    }

    struct Report: CommandReport {
        var groups: [Group]
        var unreadable: [Unreadable]

        var text: String {
            // Signatures and versions come from files anyone with the app's public key can make.
            func shown(_ text: String) -> String { LogText.printable(text, limit: 120) }
            var lines: [String] = []
            if groups.isEmpty {
                lines.append("no reports")
            } else {
                lines.append(Rendering.table([["reports", "signature", "replays with", "first seen", "last seen", "representative"]] + groups.map { group in
                    [
                        "\(group.count)", shown(group.signature.description),
                        group.builds.map { "\(shown($0.description)) ×\($0.reports)" }.joined(separator: ", "),
                        Rendering.timestamp(group.firstSeen), Rendering.timestamp(group.lastSeen), group.representative,
                    ]
                }))
            }
            if !unreadable.isEmpty {
                lines.append("\(unreadable.count) file\(unreadable.count == 1 ? "" : "s") not read as reports:")
                lines += unreadable.map { "  \($0.file): \(shown($0.reason))" }
            }
            return lines.joined(separator: "\n")
        }
    }
}
