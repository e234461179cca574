// The shop stands for the reader's app; on Apple platforms, the view the scene shows.
import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay
import RewindTesting
import Synchronization
import Testing
#if canImport(SwiftUI)
import SwiftUI
private struct ContentView: View { var body: some View { EmptyView() } }
#endif
private let appEffects = Shop.effects(environment: .simulated)
