import ArgumentParser
import Foundation
import RewindLog

/// `rewind reports PATH… [--key-file KEYS]`: a pile of reports grouped by bug.
struct ReportsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports",
        abstract: "Group report files by signature: one line per distinct bug, with counts, versions and when seen.",
        discussion: """
            PATH is a report file or a folder of them (an outbox copied off a device, the reports a \
            collector stored). Reports are grouped by signature (ReportSignature): the reason — \
            signal, invariant, hung or error action — and the trigger's case and source line, from \
            the clear header. With --key-file each report is opened too, which adds a crash's site \
            (image and offset). Files that are not reports are listed apart, never fatal.
            """
    )

    @Argument(help: "Report files, or folders holding them.") var paths: [String]
    @Option(name: .customLong("key-file"), help: ArgumentHelp("The team's private key (a key file): group by crash site too.", valueName: "path"))
    var keyFile: String?
    @OptionGroup var format: OutputFormat

    func run() throws {
        var keys: LogKeys?
        if let keyFile {
            do { keys = try LogKeys.reading(keyFileAt: keyFile) } catch { throw InputError("--key-file \(keyFile): \(error.reason)") }
        }
        var groups: [ReportSignature: Group] = [:]
        var unreadable: [Unreadable] = []
        for file in try Self.files(in: paths) {
            do throws(EventLogError) {
                let report = try FieldReport(contentsOf: file)
                var details: ReportDetails?
                if let keys { details = try report.open(with: keys).details }
                let signature = ReportSignature(header: report.header, details: details)
                groups[signature, default: Group(signature: signature, representative: file)].add(report.header, file: file)
            } catch {
                // Its description begins with the path, which the listing shows already.
                let reason = error.description
                unreadable.append(Unreadable(file: file, reason: reason.hasPrefix(file + ": ") ? String(reason.dropFirst(file.count + 2)) : reason))
            }
        }
        let sorted = groups.values.sorted { ($0.count, $1.signature) > ($1.count, $0.signature) }
        try format.print(Report(groups: sorted, unreadable: unreadable))
    }

    /// The report files `paths` name: files as given, folders' `.rwreport` files (held ones too).
    static func files(in paths: [String]) throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw InputError("\(path): no such file or folder") }
            guard isFolder.boolValue else {
                files.append(path)
                continue
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            files += names.filter { $0.hasSuffix(".\(ReportOutbox.fileExtension)") || $0.hasSuffix(".\(ReportOutbox.fileExtension).held") }
                .map { (path as NSString).appendingPathComponent($0) }
        }
        return files
    }
}

extension ReportsCommand {
    /// The reports of one signature.
    struct Group: Encodable {
        var signature: ReportSignature
        var count = 0
        /// Reports per app version.
        var versions: [String: Int] = [:]
        var firstSeen = Double.infinity
        var lastSeen = -Double.infinity
        /// One report of the group, to open first.
        var representative: String

        mutating func add(_ header: ReportHeader, file: String) {
            count += 1
            versions[header.app.version, default: 0] += 1
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
                lines.append(Rendering.table([["reports", "signature", "versions", "first seen", "last seen", "representative"]] + groups.map { group in
                    [
                        "\(group.count)", shown(group.signature.description),
                        group.versions.sorted { $0.key < $1.key }.map { "\(shown($0.key.ifEmpty("—"))) ×\($0.value)" }.joined(separator: ", "),
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
