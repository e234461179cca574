public import Foundation

/// A fresh folder under the system's temporary directory, removed when released.
public final class TemporaryDirectory: Sendable {
    /// The folder's path.
    public let path: String

    /// Creates the folder.
    public init() throws {
        path = NSTemporaryDirectory() + "rewind-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the folder.
    public func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The bytes of a file, to show that something left it unchanged.
public func fileBytes(_ path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}
