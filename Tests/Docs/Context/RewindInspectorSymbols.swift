// An API of the reader's own: every call answered with an empty object.
import Foundation

private struct MyAPI: InspectorAPI {
    func isLong(_ call: InspectorCall) -> Bool { false }
    func answer(_ call: InspectorCall, in job: InspectorJob) async -> InspectorResponse { .json(Data("{}".utf8)) }
}
private let myAPI = MyAPI()
