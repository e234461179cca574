import Foundation

/// What differs between a folder of migrations and the Swift file `Tools/embed-migrations.sh`
/// generated from it: a file whose SQL is not embedded as it is, and the list of embedded names
/// against the files' (so a migration without a file is caught too). Empty when they agree.
///
/// - Parameters:
///   - folder: The migrations' folder, from the package root (`Migrations/postgres`).
///   - generated: The generated file, from the package root.
public func embeddedMigrationDifferences(folder: String, generated: String) throws -> [String] {
    // Tests/Support/EmbeddedMigrations.swift → the package root.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let swift = try String(contentsOf: root.appendingPathComponent(generated), encoding: .utf8)
    let files = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
        .filter { $0.hasSuffix(".sql") }.sorted()
    guard !files.isEmpty else { return ["\(folder) has no migrations"] }
    var differences: [String] = []
    for file in files {
        let sql = try String(contentsOf: root.appendingPathComponent("\(folder)/\(file)"), encoding: .utf8)
        let indented = sql.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "            " + $0 }.joined(separator: "\n")
        if !swift.contains(indented) { differences.append("\(folder)/\(file) changed: run Tools/embed-migrations.sh") }
    }
    let embedded = swift.split(separator: "\n").compactMap { line -> String? in
        guard let start = line.range(of: "name: \""), line.hasSuffix("\",") else { return nil }
        return line[start.upperBound...].dropLast(2) + ".sql"
    }
    if embedded != files { differences.append("\(generated) embeds \(embedded), \(folder) has \(files): run Tools/embed-migrations.sh") }
    return differences
}
