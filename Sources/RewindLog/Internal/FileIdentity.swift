import Foundation

/// A file's device and inode: which file a path names. It changes when the file is deleted or
/// replaced, and two paths to one file have the same.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64

    init?(path: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let device = (attributes[.systemNumber] as? NSNumber)?.uint64Value,
              let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        else { return nil }
        self.device = device
        self.inode = inode
    }
}
