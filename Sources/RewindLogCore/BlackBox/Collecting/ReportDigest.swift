import Crypto
public import Foundation

/// A report's digest: SHA-256 of its bytes, lowercase hex. An uploader sends it as the report's
/// idempotency key (the same file gives the same key after any number of relaunches), and a
/// collector's store keeps it to tell a retry from another report under a reused key. (The
/// collector's tokens file keeps its tokens' digests the same way.)
public enum ReportDigest {
    /// The digest of `bytes`.
    public static func hex(of bytes: Data) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}
