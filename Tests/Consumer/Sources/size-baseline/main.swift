// What any app has without Rewind: a Codable state changed by a switch, written as JSON. The
// size of its stripped release binary is the baseline Tools/consumer.sh --sizes subtracts.
import Foundation

struct State: Codable { var count = 0 }
enum Action: Codable { case increment, reset }

var state = State()
for action in [Action.increment, .increment, .reset] {
    switch action {
    case .increment: state.count += 1
    case .reset: state.count = 0
    }
}
print(String(decoding: try JSONEncoder().encode(state), as: UTF8.self))
