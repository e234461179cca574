import Foundation
import Rewind
import RewindFeedback
import RewindLog
import RewindReplay
import RewindTestSupport
import Synchronization
import Testing

// The "Scenes and flows" article's forgot-password flow (RewindFeedback.docc/ScenesAndFlows.md),
// kept compiling and true: three screens pushed in order, unwound as a whole, recorded and
// replayed without a stage.

/// What the forgot-password flow has learnt so far. The new password itself is never in the
/// state or the log: the flow returns it to the caller, which sends it to the server.
struct PasswordReset: Codable, Equatable, Sendable {
    var phone: String?
    var code: String?
    var passwordChosen = false

    enum Action: Codable, Equatable, Sendable {
        case phoneEntered(String)
        case codeEntered(String)
        case passwordChosen
    }

    static let reducer = Reducer<PasswordReset, Action> { reset, action in
        switch action {
        case .phoneEntered(let phone): reset = PasswordReset(phone: phone)
        case .codeEntered(let code): reset.code = code
        case .passwordChosen: reset.passwordChosen = true
        }
    }

    /// The screens, described as data: a UIKit or SwiftUI stage builds them from `content`.
    enum Screen: Sendable, Equatable {
        case enterPhone
        case enterCode(sentTo: String)
        case newPassword
    }

    static let enterPhone = Scene<String>("EnterPhoneScene", content: Screen.enterPhone)
    static func enterCode(sentTo phone: String) -> Scene<String> {
        Scene("EnterCodeScene", content: Screen.enterCode(sentTo: phone))
    }
    static let newPassword = Scene<String>("NewPasswordScene", content: Screen.newPassword)
}

/// Asks for the phone number, the code sent to it and a new password, on three pushed screens;
/// returns the new password. The screens leave the stage together, newest first, whether the
/// flow completes, fails or is cancelled.
func forgotPassword(on stage: some Stage, store: Store<PasswordReset, PasswordReset.Action>) async throws -> String {
    try await withFlow(on: stage, recordingInto: store) { flow in
        let phone = try await flow.run(PasswordReset.enterPhone, .push, as: PasswordReset.Action.phoneEntered)
        _ = try await flow.run(PasswordReset.enterCode(sentTo: phone), .push, as: PasswordReset.Action.codeEntered)
        // The action records that a password was chosen, not the password.
        return try await flow.run(PasswordReset.newPassword, .push, as: { _ in .passwordChosen })
    }
}

@Suite("Scenes and flows: the forgot-password flow")
struct ForgotPasswordFlowTests {
    /// The flow on a test stage and a store of its own, running.
    func startFlow(
        _ stage: TestStage = TestStage()
    ) -> (TestStage, Store<PasswordReset, PasswordReset.Action>, Task<String, any Error>) {
        let store = Store(initialState: PasswordReset(), reducer: PasswordReset.reducer)
        return (stage, store, Task { try await forgotPassword(on: stage, store: store) })
    }

    let pushedAndUnwound: [TestStage.Step] = [
        .presented("EnterPhoneScene", .push), .presented("EnterCodeScene", .push), .presented("NewPasswordScene", .push),
        .dismissed("NewPasswordScene"), .dismissed("EnterCodeScene"), .dismissed("EnterPhoneScene"),
    ]

    @Test("a test stage answers each screen; the flow presents them in order and unwinds them newest first")
    func answered() async throws {
        let (stage, store, flow) = startFlow()

        try await stage.answer("555-0100", to: "EnterPhoneScene")
        let code = try await stage.presentation(of: "EnterCodeScene")
        #expect(code.placement == .push)
        #expect(stage.onStage == ["EnterPhoneScene", "EnterCodeScene"], "the first screen stays under the second")
        try await stage.answer("424242", to: "EnterCodeScene")
        try await stage.answer("correct horse", to: "NewPasswordScene")

        #expect(try await flow.value == "correct horse")
        #expect(stage.history == pushedAndUnwound)
        #expect(stage.onStage.isEmpty)
        #expect(store.state == PasswordReset(phone: "555-0100", code: "424242", passwordChosen: true))
    }

    @Test("the second screen is built from what the first returned")
    func contentCarriesValues() async throws {
        let stage = ContentStage()
        let store = Store(initialState: PasswordReset(), reducer: PasswordReset.reducer)
        let flow = Task { try await forgotPassword(on: stage, store: store) }
        try await stage.inner.answer("555-0100", to: "EnterPhoneScene")
        try await stage.inner.answer("424242", to: "EnterCodeScene")
        try await stage.inner.answer("pw", to: "NewPasswordScene")
        _ = try await flow.value
        #expect(stage.contents.all == [.enterPhone, .enterCode(sentTo: "555-0100"), .newPassword])
    }

    @Test("cancelled mid-flow, every presented screen is dismissed, newest first, and nothing more is recorded")
    func cancelledMidFlow() async throws {
        let (stage, store, flow) = startFlow()

        try await stage.answer("555-0100", to: "EnterPhoneScene")
        try await stage.answer("424242", to: "EnterCodeScene")
        try await stage.presentation(of: "NewPasswordScene")
        flow.cancel()

        await #expect(throws: CancellationError.self) { try await flow.value }
        #expect(stage.history == pushedAndUnwound)
        #expect(store.state == PasswordReset(phone: "555-0100", code: "424242", passwordChosen: false))
        #expect(stage.onStage.isEmpty)
    }

    @Test("cancelled on the first screen: that one screen is dismissed")
    func cancelledOnFirstScreen() async throws {
        let (stage, store, flow) = startFlow()
        try await stage.presentation(of: "EnterPhoneScene")
        flow.cancel()
        await #expect(throws: CancellationError.self) { try await flow.value }
        #expect(stage.history == [.presented("EnterPhoneScene", .push), .dismissed("EnterPhoneScene")])
        #expect(store.state == PasswordReset())
    }

    @Test("cancelled before it starts, the flow presents nothing")
    func cancelledBeforeStart() async throws {
        let stage = TestStage()
        let store = Store(initialState: PasswordReset(), reducer: PasswordReset.reducer)
        let started = Gate()
        let flow = Task {
            await started.wait()
            return try await forgotPassword(on: stage, store: store)
        }
        flow.cancel()
        started.open()
        await #expect(throws: CancellationError.self) { try await flow.value }
        #expect(stage.history.isEmpty)
    }

    @Test("the user closing a screen unwinds the flow with SceneEnded: that screen first, then the rest")
    func userClosesAScreen() async throws {
        let (stage, store, flow) = startFlow()
        try await stage.answer("555-0100", to: "EnterPhoneScene")
        try await stage.finish("EnterCodeScene")

        await #expect(throws: SceneEnded(scene: "EnterCodeScene")) { try await flow.value }
        #expect(stage.history == [
            .presented("EnterPhoneScene", .push), .presented("EnterCodeScene", .push),
            .dismissed("EnterCodeScene"), .dismissed("EnterPhoneScene"),
        ])
        #expect(store.state == PasswordReset(phone: "555-0100"))
    }

    @Test("a screen the stage cannot present ends the flow with the stage's error; the others unwind, it is never dismissed")
    func stageRefuses() async throws {
        struct NoNavigation: Error, Equatable {}
        let refusing = TestStage()
        refusing.refuse("EnterCodeScene", with: NoNavigation())
        let (stage, _, flow) = startFlow(refusing)
        try await stage.answer("555-0100", to: "EnterPhoneScene")
        await #expect(throws: NoNavigation()) { try await flow.value }
        #expect(stage.history == [.presented("EnterPhoneScene", .push), .dismissed("EnterPhoneScene")])
    }

    @Test("recorded, the flow's log names each scene and its presenting call, and replays to the same state with no stage")
    func recordedAndReplayed() async throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("reset.rewind"))
        let recorder = Recorder<PasswordReset, PasswordReset.Action>(log: log, app: AppIdentity(id: "reset"))
        let store = Store(initialState: PasswordReset(), reducer: PasswordReset.reducer, middleware: recorder.middleware)
        let stage = TestStage()
        let flow = Task { try await forgotPassword(on: stage, store: store) }
        try await stage.answer("555-0100", to: "EnterPhoneScene")
        try await stage.answer("424242", to: "EnterCodeScene")
        try await stage.answer("correct horse", to: "NewPasswordScene")
        _ = try await flow.value
        try await recorder.close()

        let reopened = try EventLog(path: folder.file("reset.rewind"), mode: .readOnly)
        let session = try #require(try reopened.sessions().first)
        let replayed = try Replayer(log: reopened, reducer: PasswordReset.reducer).finalState(session: session.id, fromStart: true)
        #expect(replayed == store.state)
        #expect(replayed == PasswordReset(phone: "555-0100", code: "424242", passwordChosen: true))

        var cursor = reopened.events()
        var sources: [ActionSource] = []
        while let event = try cursor.next() { sources.append(event.source) }
        #expect(sources.map(\.origin) == [.scene, .scene, .scene])
        #expect(sources.map(\.info) == ["EnterPhoneScene", "EnterCodeScene", "NewPasswordScene"])
        #expect(sources.allSatisfy { $0.file == "RewindFeedbackTests/ForgotPasswordFlowTests.swift" })
        #expect(sources.allSatisfy { $0.function == "forgotPassword(on:store:)" })
        #expect(Set(sources.map(\.line)).count == 3, "each scene's own presenting line")
        #expect(sources[0].description.hasSuffix("[scene] — EnterPhoneScene"))

        // Every byte the log left on disk (the database and any journal beside it).
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let bytes = files.compactMap { fileBytes(folder.file($0)) }.reduce(Data(), +)
        #expect(bytes.range(of: Data("424242".utf8)) != nil, "the code entered is recorded")
        #expect(bytes.range(of: Data("correct horse".utf8)) == nil, "the password is not")
    }
}

/// A stage that notes each scene's content, then lets a test stage do the rest.
private final class ContentStage: Stage {
    let inner = TestStage()
    let contents = Collected<PasswordReset.Screen>()

    func present<Value: Sendable>(_ scene: Scene<Value>, as presentation: Presentation, output: SceneOutput<Value>) async throws {
        if let screen = scene.content as? PasswordReset.Screen { contents.append(screen) }
        try await inner.present(scene, as: presentation, output: output)
    }

    func dismiss(_ presentation: Presentation) async {
        await inner.dismiss(presentation)
    }
}

/// Values appended from any task, read by the test.
final class Collected<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    func append(_ element: Element) {
        elements.withLock { $0.append(element) }
    }

    var all: [Element] {
        elements.withLock { $0 }
    }
}
