import Foundation
import RewindTestSupport
import Testing

/// `rewind blame` with the built binary, against what `rewind state` shows at every seq.
@Suite("rewind blame")
struct BlameCommandTests {
    let folder: TemporaryDirectory
    let rewind = builtProduct("rewind")

    /// The demo's log: 60 actions in one session.
    init() async throws {
        folder = try TemporaryDirectory()
        let demo = try await run(rewind, ["demo", "--quiet", "--output", "demo.rewind"], in: folder.path)
        #expect(demo.status == 0, "\(demo.standardError)")
    }

    func json(_ arguments: String...) async throws -> [String: Any] {
        let result = try await run(rewind, arguments + ["--json"], in: folder.path)
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        return try #require(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardOutput)")
    }

    /// The value at `path` (`a.b[2].c`) in a state as `rewind state --json` prints it; `nil`
    /// where it is not there. Written apart from the tool's own walker, on purpose.
    static func value(at path: String, in state: Any) -> Any? {
        var current: Any? = state
        for component in path.split(separator: ".") {
            let parts = component.split(separator: "[")
            if let key = parts.first, !key.isEmpty {
                if key == "count", let list = current as? [Any] { current = list.count; continue }
                current = (current as? [String: Any])?[String(key)]
            }
            for index in parts.dropFirst().compactMap({ Int($0.dropLast()) }) {
                guard let list = current as? [Any], list.indices.contains(index) else { return nil }
                current = list[index]
            }
        }
        return current is NSNull ? nil : current
    }

    /// Any JSON value as comparable text (`nil`: absent).
    static func text(_ value: Any?) -> String {
        guard let value else { return "—" }
        let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }

    @Test("lists exactly the actions after which the value differs from before, as rewind state shows it at every seq: a field, an index, a count, an enum's payload")
    func againstStateAtEverySeq() async throws {
        var states: [Any] = []
        for seq in 1...60 {
            states.append(try #require(try await json("state", "demo.rewind", "--at", "\(seq)")["state"]))
        }
        // The state before seq 1 is the session's initial one: blame's starting value says it.
        for path in ["cart.total", "cart.lines[0].quantity", "cart.lines.count", "checkout.status.paying._0.total", "cart.discount.code"] {
            let report = try await json("blame", "demo.rewind", "--path", path)
            let start = (report["starts"] as? [[String: Any]])?.first?["value"]
            var previous = Self.text(start)
            var expected: [String] = []
            for (index, state) in states.enumerated() {
                let now = Self.text(Self.value(at: path, in: state))
                if now != previous { expected.append("\(index + 1) \(previous) → \(now)") }
                previous = now
            }
            let changes = try #require(report["changes"] as? [[String: Any]])
            let listed = changes.map { change in
                "\(change["seq"] as? Int ?? 0) \(Self.text(change["old"])) → \(Self.text(change["new"]))"
            }
            #expect(listed == expected, "\(path)")
            #expect(!expected.isEmpty, "\(path) changes in the demo")
            #expect(report["eventsReplayed"] as? Int == 60)
        }
        // Each change names its action and source, as rewind log does.
        let total = try await json("blame", "demo.rewind", "--path", "cart.total")
        let twelve = try #require((total["changes"] as? [[String: Any]])?.first { $0["seq"] as? Int == 12 })
        #expect(twelve["action"] as? String == "cart.setQuantity" && (twelve["file"] as? String)?.hasSuffix("ShopScreens.swift") == true && twelve["line"] as? Int == 34)
        #expect(Self.text(twelve["new"]) == "-1000")
    }

    @Test("--from and --to bound the replay: the value before --from is where the list starts")
    func range() async throws {
        let all = try await json("blame", "demo.rewind", "--path", "cart.total")
        let part = try await json("blame", "demo.rewind", "--path", "cart.total", "--from", "10", "--to", "30")
        let seqs = { (report: [String: Any]) in (report["changes"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int } }
        #expect(seqs(part) == seqs(all).filter { (10...30).contains($0) })
        #expect(part["eventsReplayed"] as? Int == 21)
        let before = try await json("state", "demo.rewind", "--at", "9")
        #expect(Self.text((part["starts"] as? [[String: Any]])?.first?["value"]) == Self.text(Self.value(at: "cart.total", in: before["state"] as Any)))
    }

    @Test("a path that is not there names the nearest key; odd arguments exit 2 with a clear error")
    func refusals() async throws {
        for (arguments, message) in [
            (["--path", "cart.totl"], "'totl' is not in cart (it has: discountAmount, lines, subtotal, total); did you mean 'total'?"),
            (["--path", "carts.total"], "did you mean 'cart'?"),
            (["--path", "cart.total.x"], "cannot follow x into cart.total, which is a value"),
            (["--path", "cart..total"], "has an empty path component"),
            (["--path", "cart.lines[x]"], "malformed index"),
            (["--path", "cart.total", "--from", "30", "--to", "10"], "--from 30 is after --to 10"),
            (["--path", "cart.total", "--session", "9"], "session 9"),
            (["--path", "cart.total", "--from", "0"], "--from 0: a seq is 1 or more"),
        ] {
            let result = try await run(rewind, ["blame", "demo.rewind"] + arguments, in: folder.path)
            #expect(result.status == 2 && result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
    }
}
