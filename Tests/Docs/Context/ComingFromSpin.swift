// A recorder, and the two loops the gear connects: authorization and a feature.
import Rewind
import RewindFeedback
import RewindLog

private let recorder = Recorder<Levels, Levels.Event>(log: try! EventLog(path: "levels.rewind"), app: AppIdentity(id: "levels", version: "1"))

private struct Authorization: Equatable, Sendable {
    enum Phase: Equatable, Sendable { case valid, renewing, renewed }
    enum Event: Equatable, Sendable { case expired, renewed(Int), announced }
    var phase = Phase.valid
    var token = 0
}

private struct Feature: Equatable, Sendable {
    enum Phase: Equatable, Sendable { case idle, loading, unauthorized }
    enum Event: Equatable, Sendable { case load, refused, tokenRenewed(Int) }
    var phase = Phase.idle
    var token = 0
}
