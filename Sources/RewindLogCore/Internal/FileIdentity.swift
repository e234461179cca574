import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's device and inode: which file a path names. It changes when the file is deleted or
/// replaced, and two paths to one file have the same.
package struct FileIdentity: Equatable {
    package var device: UInt64
    package var inode: UInt64

    package init?(path: String) {
        #if canImport(Glibc) || canImport(Darwin)
        // `lstat` itself: the recorder's writer asks before every batch whether its file is still
        // in place, and `FileManager.attributesOfItem` (a dictionary of every attribute, boxed)
        // took about 1.3 % of the writer thread's time, `lstat` 0.1 % (`rewind-bench
        // --workload record --codec binary`, profiled). `lstat`, not `stat`, as
        // `attributesOfItem` does: a symbolic link is itself, not the file it names.
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        device = UInt64(truncatingIfNeeded: status.st_dev)
        inode = UInt64(truncatingIfNeeded: status.st_ino)
        #else
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let device = (attributes[.systemNumber] as? NSNumber)?.uint64Value,
              let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        else { return nil }
        self.device = device
        self.inode = inode
        #endif
    }
}
