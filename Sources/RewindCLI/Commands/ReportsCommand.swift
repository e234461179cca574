import ArgumentParser
import Foundation
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
            (image and offset). Files that are not reports are listed apart, never fatal.
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
    static func triage(_ paths: [String], keyFile: String?, progress: (Int, Int) -> Void = { _, _ in }) async throws -> Report {
        let keys = try keyFile.map { try LogOptions.keys(keyFile: $0) }
        var groups: [ReportSignature: Group] = [:]
        var unreadable: [Unreadable] = []
        let (reports, stores) = try await Self.reports(in: paths)
        for (index, (file, read)) in reports.enumerated() {
            progress(index, reports.count)
            do throws(EventLogError) {
                let report = try await read()
                var details: ReportDetails?, shapes: SessionShapes?
                if let keys { (details, shapes) = Self.opened(try report.open(with: keys)) }
                let signature = ReportSignature(header: report.header, details: details)
                groups[signature, default: Group(signature: signature, representative: file)].add(report.header, shapes: shapes, file: file)
            } catch {
                // Its description begins with the path, which the listing shows already.
                let reason = error.description
                unreadable.append(Unreadable(file: file, reason: reason.hasPrefix(file + ": ") ? String(reason.dropFirst(file.count + 2)) : reason))
            }
        }
        // postgres-nio requires its connections closed before they go.
        for store in stores { await store.close() }
        let sorted = groups.values.sorted { ($0.count, $1.signature) > ($1.count, $0.signature) }
        return Report(groups: sorted, unreadable: unreadable)
    }

    /// The reports `paths` name, each with how to read it: files as given, folders'
    /// `.rwreport` files (held ones too), a collector's stored reports (`STORE#ID`).
    /// An opened report's details, and the shapes its session was recorded with (from its
    /// export's session line), whose fingerprints say which build replays it.
    static func opened(_ content: (details: ReportDetails, export: Data)) -> (ReportDetails, SessionShapes?) {
        let sessionLine = content.export.split(separator: 0x0A).lazy.compactMap { line in
            try? JSONDecoder().decode(PortableLog.SessionLine.self, from: line)
        }.first
        return (content.details, sessionLine?.shapes)
    }

    /// The stores opened are returned too: the caller closes them once it has read the reports.
    static func reports(in paths: [String]) async throws -> (
        reports: [(name: String, read: @Sendable () async throws(EventLogError) -> FieldReport)], stores: [any CollectorStore]
    ) {
        var reports: [(name: String, read: @Sendable () async throws(EventLogError) -> FieldReport)] = []
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
                    return (name, { () async throws(EventLogError) -> FieldReport in
                        guard let bytes = try await store.bytes(id: entry.id) else { throw .unreadableReport(path: name, reason: "deleted since listed") }
                        return try FieldReport(bytes: bytes, path: name)
                    })
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
            reports += files.map { file in (file, { () async throws(EventLogError) -> FieldReport in try FieldReport(contentsOf: file) }) }
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

        mutating func add(_ header: ReportHeader, shapes: SessionShapes?, file: String) {
            count += 1
            reports.append(file)
            versions[header.app.version, default: 0] += 1
            var build = Build(
                version: header.app.version, actionSchemaVersion: header.app.actionSchemaVersion, stateSchemaVersion: header.app.stateSchemaVersion,
                actionFingerprint: shapes?.action?.fingerprint, stateFingerprint: shapes?.state?.fingerprint
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
