import Foundation
import RewindLog
import RewindTestSupport
import Testing

/// `EventLog.defaultPath(for:)` on Linux: the XDG data folder, made owner-only when missing, a
/// file name no app id can steer out of it.
@Suite("The log's default location")
struct DefaultLocationTests {
    @Test("XDG_DATA_HOME/rewind/<app id>.rewind, made with mode 0700; without it, HOME/.local/share; a log opens there")
    func xdg() throws {
        let folder = try TemporaryDirectory()
        let data = folder.file("data")
        let path = try EventLog.defaultPath(for: AppIdentity(id: "com.example.shop"), environment: ["XDG_DATA_HOME": data, "HOME": "/nonexistent"])
        #expect(path == data + "/rewind/com.example.shop.rewind")
        let attributes = try FileManager.default.attributesOfItem(atPath: data + "/rewind")
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o700)
        let log = try EventLog(path: path)
        #expect(try log.sessions().isEmpty)
        try log.close()

        let home = folder.file("home")
        let fallback = try EventLog.defaultPath(for: AppIdentity(id: "com.example.shop"), environment: ["HOME": home, "XDG_DATA_HOME": "relative/ignored"])
        #expect(fallback == home + "/.local/share/rewind/com.example.shop.rewind")
        #expect(FileManager.default.fileExists(atPath: home + "/.local/share/rewind"))
    }

    @Test("an app id is a file name in the folder whatever it holds: slashes, dots, empty", arguments: [
        ("../../etc/passwd", ".._.._etc_passwd.rewind"), ("..", "app__.rewind"), (".", "app_.rewind"), ("", "app.rewind"),
        ("a b/c\u{0}d", "a_b_c_d.rewind"), ("café", "caf_.rewind"),
    ])
    func names(id: String, file: String) throws {
        let folder = try TemporaryDirectory()
        let path = try EventLog.defaultPath(for: AppIdentity(id: id), environment: ["XDG_DATA_HOME": folder.path])
        #expect(path == folder.path + "/rewind/" + file)
    }

    @Test("no folder to be had is a clear error, not a log in the working directory")
    func noHome() throws {
        #expect(throws: EventLogError.self) { try EventLog.defaultPath(for: AppIdentity(id: "x"), environment: [:]) }
        let folder = try TemporaryDirectory()
        try "a file".write(toFile: folder.file("blocked"), atomically: true, encoding: .utf8)
        do {
            _ = try EventLog.defaultPath(for: AppIdentity(id: "x"), environment: ["XDG_DATA_HOME": folder.file("blocked")])
            Issue.record("a file where the folder goes was not refused")
        } catch {
            #expect(error.description.contains("cannot be made"), "\(error)")
        }
    }
}
