import Foundation

/// A file's device and inode: which file a path names. It changes when the file is deleted or
/// replaced, and two paths to one file have the same.
package struct FileIdentity: Equatable {
    package var device: UInt64
    package var inode: UInt64

    package init?(path: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let device = (attributes[.systemNumber] as? NSNumber)?.uint64Value,
              let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        else { return nil }
        self.device = device
        self.inode = inode
    }
}
