// The "Scenes and flows" article's UIKit and SwiftUI stages, compiled wherever those frameworks
// exist (they do not on Linux, where TestStage is the only stage).

#if canImport(UIKit)
import RewindFeedback
import UIKit

/// A scene's content for ``NavigationStage``: makes its view controller, connected to the output.
struct ViewControllerContent<Value: Sendable>: Sendable {
    let make: @MainActor @Sendable (SceneOutput<Value>) -> UIViewController
}

extension RewindFeedback.Scene {
    /// A scene shown as a view controller — cause-logic-effect's `scene(_:)`.
    static func viewController(
        _ name: String, _ make: @escaping @MainActor @Sendable (SceneOutput<Value>) -> UIViewController
    ) -> Self {
        Self(name, content: ViewControllerContent(make: make))
    }
}

/// Thrown by a stage given a scene it cannot build.
struct UnknownScreen: Error {
    let scene: String
}

/// A stage over a navigation controller: `.push` and `.show` push, `.present` presents modally.
@MainActor
final class NavigationStage: Stage {
    let navigation: UINavigationController
    private var screens: [Presentation: UIViewController] = [:]

    init(navigation: UINavigationController) {
        self.navigation = navigation
    }

    func present<Value: Sendable>(
        _ scene: RewindFeedback.Scene<Value>, as presentation: Presentation, output: SceneOutput<Value>
    ) async throws {
        guard let content = scene.content as? ViewControllerContent<Value> else { throw UnknownScreen(scene: scene.name) }
        let screen = content.make(output)
        screens[presentation] = screen
        switch presentation.placement {
        case .push: navigation.pushViewController(screen, animated: true)
        case .show: navigation.show(screen, sender: nil)
        case .present: (navigation.visibleViewController ?? navigation).present(screen, animated: true)
        }
    }

    func dismiss(_ presentation: Presentation) async {
        guard let screen = screens.removeValue(forKey: presentation) else { return }
        if let index = navigation.viewControllers.firstIndex(of: screen) {
            navigation.setViewControllers(Array(navigation.viewControllers[..<index]), animated: true)
        } else if screen.presentingViewController != nil {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                screen.dismiss(animated: true) { done.resume() }
            }
        }
    }
}
#endif

#if canImport(SwiftUI)
import Observation
import RewindFeedback
import SwiftUI

/// A scene's content for ``SwiftUIStage``: makes its view, connected to the output.
struct ViewContent<Value: Sendable>: Sendable {
    let make: @MainActor @Sendable (SceneOutput<Value>) -> AnyView
}

extension RewindFeedback.Scene {
    /// A scene shown as a SwiftUI view.
    static func view(_ name: String, _ make: @escaping @MainActor @Sendable (SceneOutput<Value>) -> some View) -> Self {
        Self(name, content: ViewContent { output in AnyView(make(output)) })
    }
}

/// Thrown by a stage given a scene it cannot build.
struct UnknownView: Error {
    let scene: String
}

/// A stage as observable state: `.push` and `.show` append to a navigation path, `.present`
/// shows a sheet; ``StageView`` draws it.
@MainActor
@Observable
final class SwiftUIStage: Stage {
    var path: [Presentation] = []
    var sheet: Presentation?
    private(set) var views: [Presentation: AnyView] = [:]

    func present<Value: Sendable>(
        _ scene: RewindFeedback.Scene<Value>, as presentation: Presentation, output: SceneOutput<Value>
    ) async throws {
        guard let content = scene.content as? ViewContent<Value> else { throw UnknownView(scene: scene.name) }
        views[presentation] = content.make(output)
        switch presentation.placement {
        case .push, .show: path.append(presentation)
        case .present: sheet = presentation
        }
    }

    func dismiss(_ presentation: Presentation) async {
        views[presentation] = nil
        if sheet == presentation { sheet = nil }
        if let index = path.firstIndex(of: presentation) { path.removeSubrange(index...) }
    }
}

/// The root of an app whose flows run on a ``SwiftUIStage``.
struct StageView<Root: View>: View {
    @Bindable var stage: SwiftUIStage
    let root: Root

    var body: some View {
        NavigationStack(path: $stage.path) {
            root.navigationDestination(for: Presentation.self) { presentation in stage.views[presentation] }
        }
        .sheet(item: $stage.sheet) { presentation in stage.views[presentation] }
    }
}
#endif
