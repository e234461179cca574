// The shop example, recorded into a log.
import Rewind
import RewindExamples
import RewindLog

private typealias AppState = ShopState
private let appReducer = Shop.reducer
private let app = AppIdentity(id: "com.example.shop", version: "2.3")
private let upcaster = Upcaster()
private let log = try! EventLog(path: "shop.rewind")
private let recorder = Recorder<ShopState, ShopAction>(log: log, app: app)
