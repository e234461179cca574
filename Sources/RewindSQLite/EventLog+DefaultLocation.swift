public import Foundation
public import RewindLogCore

extension EventLog {
    /// Where an app's log lives by default, its folder created if missing:
    /// `Application Support/Rewind/<app id>.rewind` on Apple platforms, and
    /// `$XDG_DATA_HOME/rewind/<app id>.rewind` (`~/.local/share/rewind/…` without it) on Linux.
    ///
    /// ```swift
    /// let log = try EventLog(path: EventLog.defaultPath(for: shop))
    /// ```
    ///
    /// The folder is its owner's only (mode 0700). On Apple platforms it is excluded from
    /// backups (a log is the device's history, rebuilt by recording, and would otherwise grow
    /// every backup), and its files are protected `completeUntilFirstUserAuthentication`: readable
    /// and writable once the device has been unlocked after a restart, so an app that is sent to
    /// the background on a locked phone still commits what it buffered; `complete` would refuse
    /// those writes, and they would be reported as lost. (The folder's settings are proven here
    /// on Linux only: backup exclusion and file protection are Apple's.)
    ///
    /// - Parameters:
    ///   - app: Whose log: its `id` names the file, with anything other than letters, digits,
    ///     `.`, `-` and `_` replaced by `_`.
    ///   - environment: Where `XDG_DATA_HOME` and `HOME` are read on Linux.
    /// - Returns: The log file's path (the file itself is created when the log is opened).
    /// - Throws: `EventLogError.failed` (RewindLogCore) when the folder cannot be made.
    public static func defaultPath(
        for app: AppIdentity, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(EventLogError) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        var name = String(app.id.map { allowed.contains($0) ? $0 : "_" })
        // "." and ".." would name the folder itself or its parent.
        if name.isEmpty || name.allSatisfy({ $0 == "." }) { name = "app" + name.replacingOccurrences(of: ".", with: "_") }
        let folder = try defaultFolder(environment: environment)
        return folder.appendingPathComponent(name + ".rewind").path
    }

    /// The folder of ``defaultPath(for:environment:)``, made (owner-only) if missing.
    static func defaultFolder(environment: [String: String]) throws(EventLogError) -> URL {
        let fileManager = FileManager.default
        #if canImport(Darwin)
        let base: URL
        do {
            base = try fileManager.url(for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        } catch {
            throw .failed(path: "Application Support", reason: "\(error.localizedDescription)")
        }
        let folder = base.appendingPathComponent("Rewind", isDirectory: true)
        #else
        let data: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            data = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], !home.isEmpty {
            data = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        } else {
            throw .failed(path: "~/.local/share", reason: "neither XDG_DATA_HOME nor HOME is set: give the log a path")
        }
        let folder = data.appendingPathComponent("rewind", isDirectory: true)
        #endif
        do {
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .failed(path: folder.path, reason: "the folder for the log cannot be made: \(error.localizedDescription)")
        }
        #if canImport(Darwin)
        var excluded = URLResourceValues()
        excluded.isExcludedFromBackup = true
        var marked = folder
        try? marked.setResourceValues(excluded)
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        try? fileManager.setAttributes([.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: folder.path)
        #endif
        #endif
        return folder
    }
}
