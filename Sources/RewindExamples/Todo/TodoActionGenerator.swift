import Foundation
public import Rewind

extension Todo {
    /// A random todo action for property tests: mostly about lists and items that exist in
    /// `state`, sometimes about ones that do not, so that replay is checked on the reducer's
    /// every path.
    ///
    /// - Parameters:
    ///   - random: The seeded source.
    ///   - state: The state the action will be dispatched in.
    /// - Returns: An action.
    public static func randomAction(using random: inout SeededRandom, in state: TodoState) -> TodoAction {
        let listID = random.chance(90) ? random.element(of: state.lists)?.id ?? random.uuid() : random.uuid()
        let items = state.lists.flatMap(\.items)
        let itemID = random.chance(90) ? random.element(of: items)?.id ?? random.uuid() : random.uuid()
        let date = Date(timeIntervalSince1970: 1_767_258_000 + Double(random.int(below: 86_400)))
        switch random.int(below: 14) {
        case 0, 1: return .list(.create(id: random.uuid(), title: "List \(random.int(below: 100))"))
        case 2: return .list(.rename(id: listID, title: "Renamed \(random.int(below: 100))"))
        case 3: return .list(random.chance(30) ? .delete(id: listID) : .select(id: listID))
        case 4, 5, 6: return .item(.add(listID: listID, id: random.uuid(), title: "Item \(random.int(below: 1_000))", at: date))
        case 7: return .item(.rename(id: itemID, title: "Edited \(random.int(below: 100))"))
        case 8, 9: return .item(.toggle(id: itemID))
        case 10: return .item(random.chance(50) ? .delete(id: itemID) : .move(id: itemID, toList: listID, index: random.int(in: -1...6)))
        case 11: return .item(.clearCompleted(listID: listID))
        case 12: return .filter(random.element(of: TodoFilter.allCases)!)
        default:
            switch random.int(below: 3) {
            case 0: return .sync(.start(at: date))
            case 1: return .sync(.finished(at: date, uploaded: random.int(in: 0...10)))
            default: return .sync(.failed(reason: "server busy"))
            }
        }
    }
}
