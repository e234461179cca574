import Foundation
import RewindTestSupport
import Testing

/// The tool's one vocabulary (the Building your own replay tool article, "One vocabulary"),
/// checked over the whole command tree of the built `rewind` as ArgumentParser describes it
/// (`--experimental-dump-help`): a command added later with another spelling for a concept the
/// tool already names fails here.
@Suite("rewind's vocabulary")
struct VocabularyTests {
    /// Spellings other tools use for a concept this one spells otherwise: each names the
    /// canonical spelling to use instead.
    static let synonyms: [String: String] = [
        // A point: one event, the state after it.
        "through": "--at", "seq": "--at", "point": "--at", "upto": "--at", "up-to": "--at", "event": "--at",
        // A range of events.
        "start": "--from", "begin": "--from", "first": "--from", "end": "--to", "last": "--to",
        // A session.
        "session-id": "--session", "sessions": "--session", "sess": "--session",
        // A time window.
        "after": "--since", "before": "--until", "start-time": "--since", "end-time": "--until",
        "newer-than": "--since", "older-than": "--until",
        // Actions left out of a replay.
        "skip": "--without", "omit": "--without", "exclude": "--without", "drop": "--without",
        // A key.
        "key": "--key-file", "keys": "--key-file", "keyfile": "--key-file", "key-path": "--key-file", "keys-file": "--key-file",
        // Output format, and the file written.
        "format": "--json", "output-format": "--json", "as-json": "--json", "jsonl": "--json", "json-lines": "--json",
        "out": "--output", "output-file": "--output", "output-path": "--output", "destination": "--output",
    ]

    struct Command {
        var path: String
        var options: [(long: [String], short: [String])]
        var positionals: [String]
    }

    /// Every command of the built tool, with its visible options and positional arguments.
    static func commands(of tool: String) async throws -> [Command] {
        let dump = try await run(builtProduct(tool), ["--experimental-dump-help"], in: FileManager.default.temporaryDirectory.path)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        var found: [Command] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let name = path + [command["commandName"] as? String ?? "?"]
            var options: [(long: [String], short: [String])] = []
            var positionals: [String] = []
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool ?? true {
                let names = argument["names"] as? [[String: Any]] ?? []
                if argument["kind"] as? String == "positional" {
                    positionals.append(argument["valueName"] as? String ?? "?")
                } else {
                    options.append((
                        names.filter { ($0["kind"] as? String)?.hasPrefix("long") == true }.compactMap { $0["name"] as? String },
                        names.filter { $0["kind"] as? String == "short" }.compactMap { $0["name"] as? String }
                    ))
                }
            }
            found.append(Command(path: name.joined(separator: " "), options: options, positionals: positionals))
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub, name) }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return found
    }

    @Test("every command spells each concept one way: a point, a range, a session, a time window, a key, the output")
    func oneVocabulary() async throws {
        let commands = try await Self.commands(of: "rewind")
        #expect(commands.count > 15, "the whole tree was read (\(commands.count) commands)")
        var problems: [String] = []
        for command in commands where !command.path.hasSuffix(" help") {
            let longs = Set(command.options.flatMap(\.long))
            for name in longs.sorted() {
                if let canonical = Self.synonyms[name] { problems.append("\(command.path): --\(name) (say \(canonical))") }
                // "skip" means one thing: events that no longer decode.
                if name.hasPrefix("skip-"), name != "skip-undecodable" { problems.append("\(command.path): --\(name) (\"skip\" is only --skip-undecodable)") }
            }
            // A point is an option, never a bare argument.
            for positional in command.positionals where ["seq", "point", "at"].contains(positional) {
                problems.append("\(command.path): <\(positional)> (say --at)")
            }
            // Ranges and windows come in pairs.
            for (one, other) in [("from", "to"), ("since", "until")] where longs.contains(one) != longs.contains(other) {
                problems.append("\(command.path): --\(longs.contains(one) ? one : other) without --\(longs.contains(one) ? other : one)")
            }
            // Whatever reads a log takes its key and answers in JSON for scripts.
            if command.positionals.first == "path" {
                for required in ["key-file", "json"] where !longs.contains(required) { problems.append("\(command.path): reads a log but has no --\(required)") }
            }
            // The file a command writes is -o/--output.
            for option in command.options where option.long.contains("output") && !option.short.contains("o") {
                problems.append("\(command.path): --output without -o")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("the spellings before the vocabulary still work, each with a note on standard error naming the new one")
    func oldSpellings() async throws {
        let (folder, path, bugSeq) = try await RewindCommandTests.demoLog()
        let cases: [(old: [String], new: [String], note: String)] = [
            (["replay", path, "--skip", "\(bugSeq)", "--through", "\(bugSeq)"], ["replay", path, "--without", "\(bugSeq)", "--at", "\(bugSeq)"], "--skip is deprecated"),
            (["show", path, "\(bugSeq)"], ["show", path, "--at", "\(bugSeq)"], "`show PATH SEQ` is deprecated"),
            (["bisect", path, "--invariant", "non-negative-total", "--skip-ahead"], ["bisect", path, "--invariant", "non-negative-total", "--monotonic"], "--skip-ahead is deprecated"),
        ]
        for (old, new, note) in cases {
            let before = try await run(builtProduct("rewind"), old, in: folder.path)
            let after = try await run(builtProduct("rewind"), new, in: folder.path)
            #expect(before.status == after.status && before.standardOutput == after.standardOutput, "\(old)")
            #expect(before.standardError.contains("warning: \(note) and will be removed in the next release; use"), "\(old): \(before.standardError)")
            #expect(!after.standardError.contains("deprecated"), "\(new)")
        }
        // The demo's --key-file naming a missing file still makes it; --new-key-file is its name now.
        let made = try await run(builtProduct("rewind"), ["demo", "--quiet", "--actions", "20", "--output", "a.rewind", "--key-file", "a.keys"], in: folder.path)
        #expect(made.status == 0 && made.standardError.contains("use --new-key-file a.keys"), "\(made.standardError)")
        let fresh = try await run(builtProduct("rewind"), ["demo", "--quiet", "--actions", "20", "--output", "b.rewind", "--new-key-file", "b.keys"], in: folder.path)
        #expect(fresh.status == 0 && fresh.standardError.isEmpty, "\(fresh.standardError)")
        #expect(try await run(builtProduct("rewind"), ["verify", "b.rewind", "--key-file", "b.keys"], in: folder.path).status == 0)
        let again = try await run(builtProduct("rewind"), ["demo", "--quiet", "--actions", "20", "--output", "c.rewind", "--new-key-file", "b.keys"], in: folder.path)
        #expect(again.status != 0 && again.standardError.contains("--new-key-file b.keys: the file exists"), "\(again.standardError)")
    }
}
