import Foundation
import GRDB
import RewindTestSupport
import Testing

/// The `rewind` binary on an encrypted log: what it shows without the key, what `--key-file`
/// opens, and the errors for a missing, wrong or malformed key and a tampered payload.
@Suite("rewind on encrypted logs")
struct EncryptedLogCommandTests {
    let folder: TemporaryDirectory
    let rewind = builtProduct("rewind")

    /// A demo session of 40 actions recorded with a new key in `keys`, and the same session
    /// recorded in the clear.
    init() async throws {
        folder = try TemporaryDirectory()
        let encrypted = try await run(rewind, ["demo", "--quiet", "--actions", "40", "--output", "shop.rewind", "--key-file", "keys"], in: folder.path)
        #expect(encrypted.status == 0, "\(encrypted.standardError)")
        let clear = try await run(rewind, ["demo", "--quiet", "--actions", "40", "--output", "clear.rewind"], in: folder.path)
        #expect(clear.status == 0, "\(clear.standardError)")
    }

    func rewind(_ arguments: String...) async throws -> ProcessOutput {
        let result = try await run(rewind, arguments, in: folder.path)
        #expect(!result.signaled, "\(arguments): \(result.standardError)")
        return result
    }

    func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test("the demo creates an owner-only key file and records under its key; sessions says which")
    func demoRecordsEncrypted() async throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.file("keys"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let keyLine = try #require(try String(contentsOfFile: folder.file("keys"), encoding: .utf8).split(separator: "\n").last)
        #expect(keyLine.hasPrefix("demo "))
        let sessions = try await rewind("sessions", "shop.rewind", "--json")
        #expect(sessions.status == 0)
        #expect(sessions.standardOutput.contains(#""keyID" : "demo""#))
        #expect(try await rewind("sessions", "shop.rewind").standardOutput.contains("json, encrypted (key demo)"))
        // The key itself is nowhere in the log.
        let secret = try #require(Data(base64Encoded: String(keyLine.split(separator: " ")[1])))
        #expect(try #require(fileBytes(folder.file("shop.rewind"))).range(of: secret) == nil)
    }

    @Test("without the key, log shows each payload as <encrypted: N bytes>; with --key-file, the payload")
    func logPayloads() async throws {
        let locked = try await rewind("log", "shop.rewind", "--json")
        #expect(locked.status == 0)
        let events = try jsonLines(locked.standardOutput)
        #expect(events.count == 40)
        for event in events {
            let payload = try #require(event["payload"] as? String)
            #expect(payload.hasPrefix("<encrypted: ") && payload.hasSuffix(" bytes>"), "\(payload)")
        }
        #expect(try await rewind("log", "shop.rewind", "--payload", "--to", "1").standardOutput.contains("    <encrypted: "))

        let opened = try await jsonLines(try rewind("log", "shop.rewind", "--json", "--key-file", "keys").standardOutput)
        let clear = try await jsonLines(try rewind("log", "clear.rewind", "--json").standardOutput)
        #expect(opened.count == 40)
        // The same seeded session: the opened payloads are the clear log's.
        for (open, plain) in zip(opened, clear) {
            #expect(open["payload"] is [String: Any])
            #expect(NSDictionary(dictionary: open["payload"] as? [String: Any] ?? [:]) == NSDictionary(dictionary: plain["payload"] as? [String: Any] ?? [:]))
        }
        let show = try await rewind("show", "shop.rewind", "--at", "2")
        #expect(show.standardOutput.contains("session 1 is encrypted with key 'demo'; pass --key-file to read it"))
        #expect(try await rewind("show", "shop.rewind", "--at", "2", "--key-file", "keys").standardOutput.contains("catalogue"))
    }

    @Test("replay commands read with --key-file as they read a clear log, and without it fail naming the session and key id")
    func replayCommands() async throws {
        for arguments in [["state", "--at", "12", "--json"], ["diff", "--at", "12", "--json"], ["verify", "--json"], ["bisect", "--invariant", "non-negative-total", "--json"]] {
            let opened = try await run(rewind, [arguments[0], "shop.rewind"] + arguments.dropFirst() + ["--key-file", "keys"], in: folder.path)
            let clear = try await run(rewind, [arguments[0], "clear.rewind"] + arguments.dropFirst(), in: folder.path)
            #expect(opened.status == clear.status, "\(arguments): \(opened.standardError)")
            // The same seeded session, recorded at another time.
            func untimed(_ text: String) -> [Substring] { text.split(separator: "\n").filter { !$0.contains(#""time" :"#) } }
            #expect(untimed(opened.standardOutput.replacingOccurrences(of: "shop.rewind", with: "clear.rewind")) == untimed(clear.standardOutput), "\(arguments)")
            let locked = try await run(rewind, [arguments[0], "shop.rewind"] + arguments.dropFirst(), in: folder.path)
            #expect(locked.status == 2, "\(arguments)")
            #expect(locked.standardError.contains("session 1 is encrypted with key 'demo', which was not given"), "\(arguments): \(locked.standardError)")
        }
    }

    @Test("a wrong key, a missing, malformed or shared key file: one clear line each, exit 2")
    func badKeys() async throws {
        let other = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        try Data("demo \(other)\n".utf8).write(to: URL(fileURLWithPath: folder.file("wrong")))
        try Data("# keys\ndemo\n".utf8).write(to: URL(fileURLWithPath: folder.file("malformed")))
        try Data("demo AAAA\n".utf8).write(to: URL(fileURLWithPath: folder.file("short")))
        try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: folder.file("binary")))
        for file in ["wrong", "malformed", "short", "binary"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.file(file))
        }
        // The right key, in a file the group can read: refused before it is read.
        try FileManager.default.copyItem(atPath: folder.file("keys"), toPath: folder.file("shared"))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: folder.file("shared"))
        let cases: [(String, String)] = [
            ("shared", "--key-file shared: group or others can read it (mode 640); keys must be private: chmod 600 shared"),
            ("wrong", "the key given as 'demo' is not the key session 1 was encrypted with"),
            ("malformed", "--key-file malformed: line 2 is not `ID BASE64`"),
            ("short", "--key-file short: line 1: key 'demo' has 3 bytes"),
            ("binary", "--key-file binary: not a key file (not UTF-8 text)"),
            ("absent", "--key-file absent: no such file"),
        ]
        for (file, message) in cases {
            let result = try await rewind("state", "shop.rewind", "--at", "5", "--key-file", file)
            #expect(result.status == 2, "\(file)")
            #expect(result.standardError.contains(message), "\(file): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(file): \(result.standardError)")
        }
    }

    @Test("one changed byte in an encrypted payload: verify and show fail naming its seq")
    func tamperedPayload() async throws {
        let queue = try DatabaseQueue(path: folder.file("shop.rewind"))
        try await queue.write { db in
            var payload = try #require(try Data.fetchOne(db, sql: "SELECT payload FROM events WHERE seq = 5"))
            payload[payload.count / 2] ^= 0x04
            try db.execute(sql: "UPDATE events SET payload = ? WHERE seq = 5", arguments: [payload])
        }
        try queue.close()
        for arguments in [["verify", "shop.rewind", "--key-file", "keys"], ["show", "shop.rewind", "--at", "5", "--key-file", "keys"]] {
            let result = try await run(rewind, arguments, in: folder.path)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.standardError.contains("seq 5: the payload of"), "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains("fails authentication"), "\(arguments): \(result.standardError)")
        }
        let check = try await rewind("check", "shop.rewind", "--key-file", "keys")
        #expect(check.status == 1)
        #expect(check.standardOutput.contains("encrypted values that fail authentication: seq 5 ("), "\(check.standardOutput)")
        let unchecked = try await rewind("check", "shop.rewind")
        #expect(unchecked.status == 0)
        #expect(unchecked.standardOutput.contains("encrypted session 1 not checked: its key 'demo' was not given"), "\(unchecked.standardOutput)")
        // Events before it still read.
        #expect(try await rewind("state", "shop.rewind", "--at", "4", "--key-file", "keys").status == 0)
    }

    @Test("export needs no key and stays encrypted; the import and a shrunk fixture read with the same key file")
    func exportImportShrink() async throws {
        #expect(try await rewind("export", "shop.rewind", "--output", "shop.jsonl").status == 0)
        let export = try String(contentsOfFile: folder.file("shop.jsonl"), encoding: .utf8)
        #expect(!export.contains("catalogue\":{"), "a payload in the clear")
        #expect(try await rewind("import", "shop.jsonl", "--output", "imported.rewind").status == 0)
        let state = try await rewind("state", "imported.rewind", "--at", "12", "--json", "--key-file", "keys")
        #expect(state.status == 0, "\(state.standardError)")
        #expect(state.standardOutput == (try await rewind("state", "clear.rewind", "--at", "12", "--json").standardOutput.replacingOccurrences(of: "clear.rewind", with: "imported.rewind")))

        let shrink = try await rewind("shrink", "shop.rewind", "--invariant", "non-negative-total", "--output", "fixture.rewind", "--key-file", "keys")
        #expect(shrink.status == 0, "\(shrink.standardError)")
        #expect(try await rewind("sessions", "fixture.rewind").standardOutput.contains("encrypted (key demo)"))
        #expect(try await rewind("bisect", "fixture.rewind", "--invariant", "non-negative-total").status == 2)
        #expect(try await rewind("bisect", "fixture.rewind", "--invariant", "non-negative-total", "--key-file", "keys").status == 0)
    }
}
