import Testing
import XCTest

/// Fails the running test at the caller's location: through Swift Testing when a Swift Testing
/// test is running, through XCTest otherwise.
func reportIssue(_ message: String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    if Test.current != nil {
        Issue.record(
            Comment(rawValue: message),
            sourceLocation: SourceLocation(
                fileID: String(describing: fileID), filePath: String(describing: filePath), line: Int(line), column: Int(column)
            )
        )
    } else {
        XCTFail(message, file: filePath, line: line)
    }
}
