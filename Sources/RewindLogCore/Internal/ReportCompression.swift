import CZlib
import Foundation

/// A report's content deflated (zlib, RFC 1950) before it is sealed, and inflated after it is
/// opened — with a bound, since a sealed report comes from outside: anyone holding the app's
/// public key can seal one, so its content is as hostile as any file.
///
/// The system's zlib, as for snapshots (``SnapshotCompression``); level 6 here, not 1: a report
/// is sealed once per trigger, never on the hot path, and every byte counts against its bound.
enum ReportCompression {
    static let level: Int32 = 6

    /// `content` deflated.
    static func compressed(_ content: Data) throws(EventLogError) -> Data {
        var capacity = compressBound(uLong(content.count))
        var output = Data(count: Int(capacity))
        let code = output.withUnsafeMutableBytes { output in
            content.withUnsafeBytes { input in
                compress2(
                    output.baseAddress!.assumingMemoryBound(to: Bytef.self), &capacity,
                    input.baseAddress?.assumingMemoryBound(to: Bytef.self), uLong(input.count), level
                )
            }
        }
        guard code == Z_OK else { throw .failed(path: "report", reason: "zlib could not deflate the report (error \(code))") }
        output.count = Int(capacity)
        return output
    }

    /// `stored` inflated, refusing a stream that is not whole or that inflates to more than
    /// `limit` bytes before it has allocated more than that.
    static func decompressed(_ stored: Data, limit: Int, path: String) throws(EventLogError) -> Data {
        var stream = z_stream()
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .failed(path: path, reason: "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        let chunk = 1 << 16
        var buffer = [UInt8](repeating: 0, count: chunk)
        var code = Z_OK
        var overLimit = false
        stored.withUnsafeBytes { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            repeat {
                code = buffer.withUnsafeMutableBytes { out in
                    stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(chunk)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk - Int(stream.avail_out)
                guard output.count + produced <= limit else { overLimit = true; return }
                output.append(contentsOf: buffer[0..<produced])
            } while code == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        if overLimit {
            throw .unreadableReport(path: path, reason: "its content inflates to more than \(limit) bytes, more than a report may hold")
        }
        guard code == Z_STREAM_END else {
            throw .unreadableReport(path: path, reason: "its content is not a whole zlib stream (zlib \(code == Z_OK ? "wanted more input" : "error \(code)"))")
        }
        guard stream.avail_in == 0 else {
            throw .unreadableReport(path: path, reason: "its content has \(stream.avail_in) bytes after its zlib stream")
        }
        return output
    }
}
