// The uploader's doc comments: the app's log path.
import Foundation
import RewindLog

private let logPath = NSTemporaryDirectory() + "notes.rewind"
