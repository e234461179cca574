import Foundation

/// A subcommand's answer: text for people, and the same facts as JSON for scripts (`--json`).
///
/// The JSON a command prints is its report type's `Encodable` form, so the field names and
/// types are the report's properties: a typed contract, documented in the types, that cannot
/// drift from the text. Optional properties are left out when they have no value.
protocol CommandReport: Encodable {
    /// The report for a terminal.
    var text: String { get }

    /// Whether the answer is "no" (`verify` found a divergence, `bisect` found nothing, `check`
    /// found damage): the command then exits 1. False unless a report says otherwise.
    var answersNo: Bool { get }
}

extension CommandReport {
    var answersNo: Bool { false }
}

/// The encoders behind every `--json` output.
enum JSONOutput {
    /// Pretty JSON with sorted keys: one document per command.
    static func pretty(_ value: some Encodable) throws -> String {
        try encode(value, formatting: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// One line of JSON with sorted keys: for JSON Lines output (`rewind log --json`).
    static func line(_ value: some Encodable) throws -> String {
        try encode(value, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }

    private static func encode(_ value: some Encodable, formatting: JSONEncoder.OutputFormatting) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
