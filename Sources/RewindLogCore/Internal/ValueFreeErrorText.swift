/// An encoding error told without the value that failed: what the log's `redaction` column
/// keeps of a payload that could not be encoded.
///
/// `EncodingError.invalidValue` carries the value itself, and an app's own `encode(to:)` may
/// throw an error whose description quotes it, so the text written to the file keeps only the
/// kind of failure, the type and the coding path — never a description of the error. (The
/// in-memory ``RecorderFailure`` keeps the full error for the app's handler.)
@usableFromInline
package enum ValueFreeErrorText {
    @usableFromInline
    package static func describe(_ error: any Error) -> String {
        if let error = error as? EncodingError, case let .invalidValue(value, context) = error {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "invalid value of type \(type(of: value))" + (path.isEmpty ? "" : " at \(path)")
        }
        return "error of type \(String(reflecting: type(of: error)))"
    }
}
