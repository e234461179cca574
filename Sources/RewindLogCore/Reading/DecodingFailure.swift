import Foundation
import Rewind

/// Turns a `DecodingError` into an ``EventLogError`` that names the coding path.
package enum DecodingFailure {
    /// Runs `body`, turning what it throws into ``EventLogError/decodingFailed(path:seq:actionCase:codingPath:reason:)``.
    /// The path and case are only made for an error: replay runs this once per action.
    package static func map<T>(
        path: @autoclosure () -> String, seq: Int64, actionCase: @autoclosure () -> String?, _ body: () throws -> T
    ) throws(EventLogError) -> T {
        do {
            return try body()
        } catch let error as DecodingError {
            let (codingPath, reason) = describe(error)
            throw .decodingFailed(path: path(), seq: seq, actionCase: actionCase(), codingPath: codingPath, reason: reason)
        } catch {
            throw .decodingFailed(path: path(), seq: seq, actionCase: actionCase(), codingPath: "", reason: "\(error)")
        }
    }

    static func describe(_ error: DecodingError) -> (codingPath: String, reason: String) {
        func render(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".").description
        }
        switch error {
        case let .keyNotFound(key, context):
            return (render(context.codingPath), "no value for key '\(key.stringValue)'")
        case let .typeMismatch(type, context):
            return (render(context.codingPath), "expected \(type): \(context.debugDescription)")
        case let .valueNotFound(type, context):
            return (render(context.codingPath), "expected \(type) but found null")
        case let .dataCorrupted(context):
            return (render(context.codingPath), context.debugDescription)
        @unknown default:
            return ("", "\(error)")
        }
    }
}
