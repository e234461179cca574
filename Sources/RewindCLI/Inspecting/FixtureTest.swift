import Foundation

/// The Swift test the inspector offers beside a shrunk fixture: it replays the fixture with
/// RewindTesting's `assertInvariant`, so the bug the fixture holds fails the test until it is
/// fixed. The reducer and the invariant's code belong to the app: they are left as
/// placeholders for Xcode to highlight.
struct FixtureTest {
    /// The fixture's file name.
    var fixture: String
    /// The log it was shrunk from (its file name).
    var log: String
    /// The broken invariant and its description, when it was one.
    var invariant: (name: String, description: String?)?
    /// The `--where` condition, when it was one.
    var condition: String?
    var kept: Int
    var original: Int

    /// A file name for a fixture shrunk from `log` for `condition`: the log's name and the
    /// condition's letters and digits, e.g. `shop-non-negative-total.rewind`.
    static func fixtureName(log: String, condition: String) -> String {
        let stem = ((log as NSString).lastPathComponent as NSString).deletingPathExtension
        return "\(slug(stem))-\(slug(condition)).rewind"
    }

    var fileName: String { "\(typeName)Tests.swift" }

    var source: String {
        let label = invariant.map { "invariant '\($0.name)'" } ?? "'\(condition ?? "")'"
        let check: String
        if let invariant {
            check = """
                    assertInvariant("\(invariant.name)", throughout: log, reducer: <#AppReducer#>) { state in
                        <#\(invariant.description ?? invariant.name)#>
                    }
                """
        } else {
            check = """
                    assertInvariant("not (\(condition ?? ""))", throughout: log, reducer: <#AppReducer#>) { state in
                        !(<#\(condition ?? "")#>)
                    }
                """
        }
        return """
            import RewindTesting
            import Testing

            /// \(kept) of the \(original) actions in \(log), after which \(label) broke: shrunk by
            /// `rewind shrink`. Keep \(fixture) in a Fixtures folder beside this file; the test
            /// fails until the bug is fixed.
            @Test("\(label.replacingOccurrences(of: "\"", with: "\\\"")) holds on the shrunk log")
            func \(memberName)() throws {
                let log = try fixtureLog("Fixtures/\(fixture)")
            \(check)
            }

            """
    }

    /// The condition as a Swift type name: `non-negative-total` → `NonNegativeTotal`.
    private var typeName: String {
        let words = Self.slug(invariant?.name ?? condition ?? "shrunk").split(separator: "-")
        let name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return name.first?.isLetter == true ? name : "Shrunk" + name
    }

    private var memberName: String {
        typeName.prefix(1).lowercased() + typeName.dropFirst()
    }

    private static func slug(_ text: String) -> String {
        let words = text.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return words.isEmpty ? "shrunk" : words.prefix(8).joined(separator: "-")
    }
}

extension FixtureTest {
    /// The test for the fixture `rewind shrink` wrote for `report`, shrunk from `log`, looking
    /// for `invariant` (with its registered description) or `condition`.
    init(fixture: String, log: String, invariant: String?, condition: String?, report: ShrinkCommand.Report) {
        self.init(
            fixture: fixture, log: log,
            invariant: invariant.map { name in (name, AppRegistry.apps.lazy.flatMap(\.invariants).first { $0.name == name }?.description) },
            condition: condition, kept: report.keptCount ?? 0, original: report.originalCount ?? 0
        )
    }
}
