// A log of the shop example, a session in it, and an action to append.
import Foundation
import RewindExamples
import Rewind
import RewindLogCore

private let log = try! EventLog(path: ":memory:")
private let session = try! log.beginSession(app: AppIdentity(id: "com.example.shop"), initialState: ShopState())
private let action = ShopAction.cart(.clear)
private let shop = AppIdentity(id: "com.example.shop", version: "2.3")
