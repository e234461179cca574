import Rewind
import RewindFeedback
import RewindTestSupport
import Testing

// Scenes, flows and the test stage, one promise at a time.

/// A store whose state is every number dispatched, to see what a flow recorded.
private func numbersStore() -> (Store<[Int], Int>, Collected<ActionSource>) {
    let sources = Collected<ActionSource>()
    let store = Store(
        initialState: [Int](),
        reducer: Reducer<[Int], Int> { numbers, number in numbers.append(number) },
        middleware: Middleware(didReduce: { dispatched, _, _ in sources.append(dispatched.source) })
    )
    return (store, sources)
}

@Suite("Scenes and flows")
struct SceneTests {
    @Test("stage.run presents one scene, returns the first value and dismisses it")
    func runOneScene() async throws {
        let stage = TestStage()
        let asking = Task { try await stage.run(Scene<Bool>("ConfirmScene")) }
        try await stage.answer(true, to: "ConfirmScene")
        #expect(try await asking.value == true)
        #expect(stage.history == [.presented("ConfirmScene", .present), .dismissed("ConfirmScene")])
    }

    @Test("cancelling the task awaiting stage.run dismisses the scene and dispatches nothing")
    func runCancelled() async throws {
        let stage = TestStage(timeout: .milliseconds(100))
        let (store, _) = numbersStore()
        let asking = Task { try await stage.run(Scene<Int>("PickScene"), recordingInto: store, as: { $0 }) }
        // Not `presentation(of:)`: its 100 ms are for the answer below, and a busy pool may
        // take longer than that to present the scene.
        while stage.onStage.isEmpty { await Task.yield() }
        asking.cancel()
        await #expect(throws: CancellationError.self) { try await asking.value }
        #expect(stage.history == [.presented("PickScene", .present), .dismissed("PickScene")])
        await #expect(throws: TestStageError.self) { try await stage.answer(1, to: "PickScene") }
        #expect(store.state.isEmpty)
    }

    @Test("stage.run into a store dispatches the value with the scene's source, at the presenting line")
    func runRecorded() async throws {
        let stage = TestStage()
        let (store, sources) = numbersStore()
        let line: UInt = #line + 1
        let asking = Task { try await stage.run(Scene<Int>("PickScene"), .show, recordingInto: store, as: { $0 * 10 }) }
        try await stage.answer(4, to: "PickScene")
        #expect(try await asking.value == 4)
        #expect(store.state == [40])
        let source = try #require(sources.all.first)
        #expect(source.origin == .scene)
        #expect(source.info == "PickScene")
        #expect(source.file == "RewindFeedbackTests/SceneTests.swift")
        #expect(source.line == line)
        #expect(stage.history == [.presented("PickScene", .show), .dismissed("PickScene")])
    }

    @Test("a scene's values: each one recorded as the flow takes it; finishing ends them and dismisses the scene")
    func manyValues() async throws {
        let stage = TestStage()
        let (store, sources) = numbersStore()
        let flow = Task {
            try await withFlow(on: stage, recordingInto: store) { flow in
                var taken: [Int] = []
                for await number in try await flow.values(of: Scene<Int>("ListScene"), .push, as: { $0 }) {
                    taken.append(number)
                }
                #expect(stage.onStage.isEmpty, "dismissed when its values ended, before the flow did")
                return taken
            }
        }
        for number in [3, 1, 2] { try await stage.answer(number, to: "ListScene") }
        try await stage.finish("ListScene")
        #expect(try await flow.value == [3, 1, 2])
        #expect(store.state == [3, 1, 2])
        #expect(sources.all.map(\.info) == ["ListScene", "ListScene", "ListScene"])
        #expect(stage.history == [.presented("ListScene", .push), .dismissed("ListScene")])
    }

    @Test("values not taken are not recorded, and the flow's end dismisses a scene whose values it stopped reading")
    func valuesAbandoned() async throws {
        let stage = TestStage()
        let (store, _) = numbersStore()
        let flow = Task {
            try await withFlow(on: stage, recordingInto: store) { flow -> Int? in
                let values = try await flow.values(of: Scene<Int>("ListScene"), as: { $0 })
                for await number in values { return number }
                return nil
            }
        }
        try await stage.answer(7, to: "ListScene")
        #expect(try await flow.value == 7)
        #expect(store.state == [7])
        #expect(stage.history == [.presented("ListScene", .present), .dismissed("ListScene")])
    }

    @Test("dismissWhenAnswered takes a scene off at once; the others wait for the flow's end")
    func dismissWhenAnswered() async throws {
        let stage = TestStage()
        let flow = Task {
            try await withFlow(on: stage) { flow in
                let name = try await flow.run(Scene<String>("NameScene"), .push)
                let sure = try await flow.run(Scene<Bool>("SureScene"), .present, dismissWhenAnswered: true)
                #expect(stage.onStage == ["NameScene"])
                return sure ? name : ""
            }
        }
        try await stage.answer("Ada", to: "NameScene")
        try await stage.answer(true, to: "SureScene")
        #expect(try await flow.value == "Ada")
        #expect(stage.history == [
            .presented("NameScene", .push), .presented("SureScene", .present), .dismissed("SureScene"), .dismissed("NameScene"),
        ])
    }

    @Test("a sub-flow of its own unwinds on its own; the outer flow's scenes stay until the outer end")
    func subFlow() async throws {
        let stage = TestStage()
        let flow = Task {
            try await withFlow(on: stage) { outer in
                let first = try await outer.run(Scene<Int>("OuterScene"), .push)
                let second = try await withFlow(on: outer.stage) { inner in
                    _ = try await inner.run(Scene<Int>("InnerA"), .push)
                    return try await inner.run(Scene<Int>("InnerB"), .push)
                }
                #expect(outer.presented.map(\.scene) == ["OuterScene"])
                return first + second
            }
        }
        try await stage.answer(1, to: "OuterScene")
        try await stage.answer(0, to: "InnerA")
        try await stage.answer(2, to: "InnerB")
        #expect(try await flow.value == 3)
        #expect(stage.history == [
            .presented("OuterScene", .push), .presented("InnerA", .push), .presented("InnerB", .push),
            .dismissed("InnerB"), .dismissed("InnerA"), .dismissed("OuterScene"),
        ])
    }

    @Test("a flow used after it ended throws FlowEnded and leaves nothing on stage")
    func escapedFlow() async throws {
        let stage = TestStage()
        let escaped = try await withFlow(on: stage) { flow in flow }
        await #expect(throws: FlowEnded(scene: "LateScene")) { try await escaped.run(Scene<Int>("LateScene")) }
        #expect(stage.history.isEmpty)
        #expect(FlowEnded(scene: "LateScene").description == "LateScene was presented after its flow ended")
    }

    @Test("a flow that throws unwinds every scene before the error reaches the caller")
    func flowThrows() async throws {
        struct Invalid: Error, Equatable {}
        let stage = TestStage()
        let flow = Task {
            try await withFlow(on: stage) { flow in
                _ = try await flow.run(Scene<Int>("AScene"), .push)
                _ = try await flow.run(Scene<Int>("BScene"), .push)
                throw Invalid()
            }
        }
        try await stage.answer(1, to: "AScene")
        try await stage.answer(2, to: "BScene")
        await #expect(throws: Invalid()) { try await flow.value }
        #expect(stage.history.suffix(2) == [.dismissed("BScene"), .dismissed("AScene")])
    }

    @Test("a stage isolated to the main actor is a stage as it is")
    func mainActorStage() async throws {
        let stage = MainActorStage()
        let asking = Task { try await stage.run(Scene<String>("HelloScene"), .show) }
        try await stage.inner.answer("hi", to: "HelloScene")
        #expect(try await asking.value == "hi")
        #expect(await stage.shownOnMainThread == ["HelloScene"])
    }
}

@Suite("TestStage")
struct TestStageTests {
    @Test("an answer of the wrong type says which type the scene provides")
    func wrongType() async throws {
        let stage = TestStage()
        let asking = Task { try await stage.run(Scene<Int>("AgeScene")) }
        await #expect(throws: TestStageError.wrongType(scene: "AgeScene", expected: "Int", given: "String")) {
            try await stage.answer("forty", to: "AgeScene")
        }
        try await stage.answer(40, to: "AgeScene")
        #expect(try await asking.value == 40)
        #expect(TestStageError.wrongType(scene: "AgeScene", expected: "Int", given: "String").description == "AgeScene provides Int, not String")
    }

    @Test("waiting for a scene that never comes ends after the timeout, saying what is on stage")
    func notPresented() async throws {
        let stage = TestStage(timeout: .milliseconds(50))
        let asking = Task { try await stage.run(Scene<Int>("AgeScene"), .push) }
        while stage.onStage.isEmpty { await Task.yield() }
        let expected = TestStageError.notPresented(
            scene: "NameScene", onStage: ["AgeScene"], history: [.presented("AgeScene", .push)]
        )
        await #expect(throws: expected) { try await stage.answer("Ada", to: "NameScene") }
        #expect(expected.description == "NameScene was not presented in time; on stage: AgeScene; history: present AgeScene (push)")
        asking.cancel()
        await #expect(throws: CancellationError.self) { try await asking.value }
        let empty = TestStageError.notPresented(scene: "X", onStage: [], history: [])
        #expect(empty.description == "X was not presented in time; on stage: nothing; history: nothing yet")
    }

    // Wide for the reason `FeedbackLoopActorTests` gives: waiting for a pool thread counts too.
    @Test("a timeout that runs out before the wait has begun still ends it", .timeLimit(.minutes(10)))
    func zeroTimeout() async throws {
        let stage = TestStage(timeout: .zero)
        // Many rounds, to meet the race between the timer and the wait's registration; but
        // no more than 20 seconds of them, so a suite that keeps both pool threads busy slows
        // this test down without failing it. A lost wake-up still hangs one round past the
        // time limit.
        let clock = ContinuousClock(), end = clock.now + .seconds(20)
        for _ in 0..<200 where clock.now < end {
            await #expect(throws: TestStageError.notPresented(scene: "NeverScene", onStage: [], history: [])) {
                try await stage.presentation(of: "NeverScene")
            }
        }
    }

    @Test("a test waiting for a scene can be cancelled")
    func cancelledWait() async throws {
        let stage = TestStage(timeout: .seconds(600))
        let waiting = Task { try await stage.presentation(of: "NeverScene") }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }

    @Test("a scene the user already finished takes no more answers")
    func alreadyEnded() async throws {
        let stage = TestStage()
        let reading = Gate()
        let flow = Task {
            try await withFlow(on: stage) { flow in
                let values = try await flow.values(of: Scene<Int>("ListScene"))
                await reading.wait()
                var taken: [Int] = []
                for await value in values { taken.append(value) }
                return taken
            }
        }
        try await stage.answer(1, to: "ListScene")
        try await stage.finish("ListScene")
        await #expect(throws: TestStageError.alreadyEnded(scene: "ListScene")) { try await stage.answer(2, to: "ListScene") }
        reading.open()
        #expect(try await flow.value == [1])
        #expect(stage.history == [.presented("ListScene", .present), .dismissed("ListScene")])
    }

    @Test("answers go to the newest presentation of a scene")
    func newest() async throws {
        let stage = TestStage()
        let flow = Task {
            try await withFlow(on: stage) { flow in
                let first = try await flow.run(Scene<Int>("StepScene"), .push)
                let second = try await flow.run(Scene<Int>("StepScene"), .push)
                return [first, second]
            }
        }
        try await stage.answer(1, to: "StepScene")
        while stage.onStage.count < 2 { await Task.yield() }
        try await stage.answer(2, to: "StepScene")
        #expect(try await flow.value == [1, 2])
    }
}

/// A stage whose screens live on the main actor, as a UIKit or SwiftUI stage's do.
@MainActor
private final class MainActorStage: Stage {
    let inner = TestStage()
    var shownOnMainThread: [String] = []

    func present<Value: Sendable>(_ scene: Scene<Value>, as presentation: Presentation, output: SceneOutput<Value>) async throws {
        MainActor.assertIsolated()
        shownOnMainThread.append(scene.name)
        try await inner.present(scene, as: presentation, output: output)
    }

    func dismiss(_ presentation: Presentation) async {
        await inner.dismiss(presentation)
    }
}
