import Foundation
import Synchronization

extension TypeShape {
    /// The shape of `type`, found by running its `init(from:)` against a decoder that answers
    /// every request with a placeholder and writes down what was asked: field names and their
    /// types, in the order decoding reads them, recursively.
    ///
    /// What it sees, and what it cannot:
    /// - Synthesized `Codable` structs and classes: every field, `Optional` ones included.
    /// - Synthesized enums with associated values: every case and its values. Their case names
    ///   come from the enum's private `CodingKeys`, read from its memory layout (a case-only
    ///   enum's values are its case indices, and `nil` the first index past them): the layout
    ///   Swift's ABI fixes.
    /// - Enums coded by raw value: every case when the enum is `CaseIterable`, or when its
    ///   cases can be read the same way; otherwise only the raw value's type.
    /// - Arrays, sets, dictionaries and optionals; `Date`, `UUID`, `Data`, `URL`, `Decimal` as
    ///   values (`Date` whatever the encoder's date strategy).
    /// - Custom `init(from:)`: what it reads with placeholder values (`0`, `""`, `false`, empty
    ///   collections). One that rejects a placeholder (a validation, a failing `rawValue`) ends
    ///   its type's probe there: the fields read so far are kept and the rest is
    ///   ``opaque(name:reason:)``. One that reads different keys depending on the values it gets
    ///   shows only the branch the placeholders take.
    /// - Recursive types: the second occurrence is a ``reference(_:)``. A generic type that
    ///   holds itself with another argument (`Box<T>` holding `Box<[T]>`), a new type at each
    ///   level, is ``opaque(name:reason:)`` past 48 levels.
    ///
    /// It runs the type's own decoding code. A custom `init(from:)` that traps on a value it
    /// did not expect (`URL(string: text)!` given `""`) traps here too: probe in tools and
    /// tests, not where a trap would cost a user (a recorder's default is generated shapes
    /// only: `RecorderConfiguration.typeShapes`).
    ///
    /// A type with `@BinaryCodable` has its shape written by the macro at compile time, and is
    /// not probed: a graph of such types (and the standard ones) is described without running
    /// any of its decoding code. With `probing: false`, a type without generated code is not
    /// probed either but marked ``opaque(name:reason:)``.
    ///
    /// The result is computed once per type and mode, then cached.
    public static func of<T: Decodable>(_ type: T.Type, probing: Bool = true) -> TypeShape {
        let key = CacheKey(type: ObjectIdentifier(type), probing: probing)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let shape = ShapeProbe(probing: probing).describe(type, wantsValue: false).shape
        cache.withLock { $0[key] = shape }
        return shape
    }

    private struct CacheKey: Hashable {
        var type: ObjectIdentifier
        var probing: Bool
    }

    private static let cache = Mutex<[CacheKey: TypeShape]>([:])
}

/// The probe behind ``TypeShape/of(_:probing:)``. Single-threaded: one probe describes one type.
final class ShapeProbe {
    /// The types being described, outermost first: a type met again is a recursive reference.
    private var describing: [ObjectIdentifier] = []
    /// Whether a type without a generated shape is probed (or marked opaque).
    private let probing: Bool
    /// Whether generated shapes are used (turned off only to test them against probing).
    private let generated: Bool

    init(probing: Bool = true, generated: Bool = true) {
        self.probing = probing
        self.generated = generated
    }
    /// How deep ``anyValue(_:depth:)`` may go looking for a non-recursive value.
    private static let valueDepth = 6
    /// How many types deep a description may nest.
    static let typeDepth = 48

    /// The shape of `type` and, when one could be made and `wantsValue`, a value of it to hand
    /// back to the decoding that asked for it.
    func describe<T: Decodable>(_ type: T.Type, wantsValue: Bool = true) -> (shape: TypeShape, value: T?) {
        if let leaf = Leaves.shape(of: type) { return leaf }
        if let container = type as? any ProbedCollection.Type {
            let (shape, value) = container.probeShape(self)
            return (shape, value as? T)
        }
        let name = Self.name(of: type)
        if let cases = Self.iterableCases(type) { return (.choice(name: name, cases: cases.cases), cases.first) }
        let id = ObjectIdentifier(type)
        // A value is only made by probing: with probing off, nothing of the type's code runs.
        let someValue = { wantsValue && self.probing ? self.anyValue(type, depth: 0) : nil }
        if describing.contains(id) { return (.reference(name), someValue()) }
        // A generic type that holds itself with another argument (`Box<T>` holding
        // `Box<[T]>`) is a new type at every level: stop before the stack does.
        if describing.count >= Self.typeDepth {
            return (.opaque(name: name, reason: "nested more than \(Self.typeDepth) types deep (a generic type that holds itself with another argument?)"), nil)
        }
        describing.append(id)
        defer { describing.removeLast() }

        if generated, let coded = type as? any BinaryCodable.Type, let shape = coded.generatedShape(TypeShapeDescriber(probe: self)) {
            return (shape, someValue())
        }
        guard probing else { return (.opaque(name: name, reason: "its shape is not generated (no @BinaryCodable) and probing is off"), nil) }

        let top = ProbeRecorder()
        let value: T?
        do {
            value = try T(from: ProbeDecoder(probe: self, recorder: top))
        } catch {
            value = nil
        }
        if top.listedKeys { return describeEnum(type, name: name, caseKeys: top.caseKeys) }
        if let value { return (top.shape(named: name), value) }
        // Decoding rejected the placeholders. A case-only enum coded by raw value is read from
        // its layout; anything else keeps what was read before the rejection.
        if top.usedSingleValue, let cases = Self.layoutCases(type) {
            return (.choice(name: name, cases: cases.map { .init(name: Self.caseName($0), fields: []) }), cases.first)
        }
        return (top.shape(named: name, incomplete: "its init(from:) rejected a placeholder value; the fields after that are not visible"), nil)
    }

    /// An enum coded by case name: each case probed in turn, its values recorded.
    private func describeEnum<T: Decodable>(_ type: T.Type, name: String, caseKeys: [String]?) -> (shape: TypeShape, value: T?) {
        guard let caseKeys else {
            return (.opaque(name: name, reason: "an enum whose coding keys cannot be listed"), anyValue(type, depth: 0))
        }
        var cases: [TypeShape.Case] = [], first: T?
        for key in caseKeys {
            let recorder = ProbeRecorder()
            recorder.chosenCase = key
            let value = try? T(from: ProbeDecoder(probe: self, recorder: recorder))
            first = first ?? value
            cases.append(.init(name: key, fields: recorder.caseFields(of: key, complete: value != nil)))
        }
        return (.choice(name: name, cases: cases), first)
    }

    /// Any value of `type`, for a recursive occurrence whose shape is already being written:
    /// decoded without recording, each enum case tried in turn until one needs no deeper
    /// recursion than ``valueDepth``.
    func anyValue<T: Decodable>(_ type: T.Type, depth: Int) -> T? {
        guard depth < Self.valueDepth else { return nil }
        if let leaf = Leaves.shape(of: type) { return leaf.value }
        if let container = type as? any ProbedCollection.Type { return container.emptyValue as? T }
        if let cases = Self.iterableCases(type) { return cases.first }
        let top = ProbeRecorder()
        top.valuesOnly = depth + 1
        if let value = try? T(from: ProbeDecoder(probe: self, recorder: top)) { return value }
        for key in top.caseKeys ?? [] {
            let recorder = ProbeRecorder()
            recorder.valuesOnly = depth + 1
            recorder.chosenCase = key
            if let value = try? T(from: ProbeDecoder(probe: self, recorder: recorder)) { return value }
        }
        return nil
    }

    static func name(of type: Any.Type) -> String {
        String(describing: type)
    }

    /// The cases of a `CaseIterable` enum, by raw value when it has one.
    private static func iterableCases<T>(_ type: T.Type) -> (cases: [TypeShape.Case], first: T?)? {
        guard let iterable = type as? any CaseIterable.Type else { return nil }
        let all = values(of: iterable)
        return (all.map { .init(name: caseName($0), fields: []) }, all.first as? T)
    }

    private static func values<C: CaseIterable>(of type: C.Type) -> [Any] {
        type.allCases.map { $0 as Any }
    }

    /// A case's name in the encoding: its raw value when it has one.
    private static func caseName(_ value: Any) -> String {
        if let raw = value as? any RawRepresentable { return String(describing: raw.rawValue) }
        return String(describing: value)
    }

    /// The values of a case-only enum, read from its layout: such an enum of up to 256 cases
    /// is stored as its case index in one byte (none for a single case), and `Optional` marks
    /// `nil` with the first index past the last case. A type of another layout gives `nil`.
    static func layoutCases<T>(_ type: T.Type) -> [T]? {
        guard MemoryLayout<T>.size <= 1, MemoryLayout<T?>.size == 1 else { return nil }
        var values: [T] = []
        for tag in 0...UInt8.max {
            guard let value = withUnsafeBytes(of: tag, { $0.load(as: T?.self) }) else { break }
            values.append(value)
        }
        return values.isEmpty ? nil : values
    }
}

/// What one run of a type's `init(from:)` asked for.
final class ProbeRecorder {
    enum Entry {
        case shape(TypeShape)
        case nested(ProbeRecorder)
        case nestedList(ProbeRecorder)
    }

    var entries: [(name: String, entry: Entry)] = []
    /// Whether the decoding listed its keys: an enum coded by case name.
    var listedKeys = false
    /// The case names of the keys it listed (`nil` when they could not be read).
    var caseKeys: [String]?
    /// The case this run answers `allKeys` with.
    var chosenCase: String?
    /// Whether the decoding read a single value (a raw value, a wrapper).
    var usedSingleValue = false
    /// Set (to a depth) when this run only makes a value, recording nothing.
    var valuesOnly: Int?

    func record(_ name: String, _ entry: Entry) {
        guard valuesOnly == nil else { return }
        entries.append((name, entry))
    }

    /// A recorder for a container nested under `name` (a keyed one, or a list), recorded here.
    func nested(_ name: String, list: Bool = false) -> ProbeRecorder {
        let nested = ProbeRecorder()
        nested.valuesOnly = valuesOnly
        record(name, list ? .nestedList(nested) : .nested(nested))
        return nested
    }

    /// The fields read, as a record; a single value read whole is that value's shape.
    func shape(named name: String, incomplete reason: String? = nil) -> TypeShape {
        if usedSingleValue, entries.count == 1, case let .shape(shape) = entries[0].entry, reason == nil { return shape }
        var fields = self.fields()
        if let reason { fields.append(.init(name: "…", shape: .opaque(name: name, reason: reason))) }
        return .record(name: name, fields: fields)
    }

    func fields() -> [TypeShape.Field] {
        entries.map { name, entry in
            switch entry {
            case let .shape(shape): .init(name: name, shape: shape)
            case let .nested(recorder): .init(name: name, shape: .record(name: name, fields: recorder.fields()))
            case let .nestedList(recorder): .init(name: name, shape: .list(recorder.fields().first?.shape ?? .opaque(name: name, reason: "an empty list")))
            }
        }
    }

    /// The values of the chosen case: the fields of the container nested under its key.
    func caseFields(of key: String, complete: Bool) -> [TypeShape.Field] {
        guard let nested = entries.first(where: { $0.name == key }) else { return [] }
        guard case let .nested(recorder) = nested.entry else { return fields() }
        var fields = recorder.fields()
        if !complete { fields.append(.init(name: "…", shape: .opaque(name: key, reason: "its decoding rejected a placeholder value"))) }
        return fields
    }
}

/// Thrown to stop a decoding the probe cannot answer (no value of a type could be made).
struct ProbeStop: Error {}
