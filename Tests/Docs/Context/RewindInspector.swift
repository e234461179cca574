import Foundation
import RewindInspector

// An API of the reader's own: every call answered with an empty object.
private struct MyAPI: InspectorAPI {
    func isLong(_ call: InspectorCall) -> Bool { false }
    func answer(_ call: InspectorCall, in job: InspectorJob) async -> InspectorResponse { .json(Data("{}".utf8)) }
}
private let myAPI = MyAPI()
