/// Where an action was dispatched from: the call site, plus an optional free-form note.
///
/// Every ``StoreType/dispatch(_:info:file:function:line:column:)`` captures an `ActionSource`
/// through default arguments, so recording where an action came from costs the caller nothing.
/// Actions dispatched by a middleware or fed back by an effect get a source of their own, whose
/// ``origin`` says so, pointing at the line inside the middleware or effect that sent them.
///
/// ```swift
/// store.dispatch(.cart(.remove(productID: productID)), info: "swipe to delete")
/// // source: "Shop/CartView.swift:42 removeTapped(_:) — swipe to delete"
/// ```
///
/// `file` is always a `#fileID` (`Module/File.swift`), never an absolute build path: a path that
/// starts with `/` is cut down to its last two components, so logs recorded on a build machine
/// do not leak its directory layout.
public struct ActionSource: Codable, Sendable, Hashable {
    /// Who dispatched the action.
    public enum Origin: String, Codable, Sendable, Hashable, CaseIterable {
        /// Code calling `dispatch` directly: a view, a test, a script.
        case call
        /// A middleware, through its ``MiddlewareContext``.
        case middleware
        /// An effect, through ``Send`` or ``Effect/send(_:info:file:function:line:column:)``.
        case effect
        /// A feedback of a feedback loop, or a reaction of a cycle: a rule that turns states into
        /// actions. The source points at where the feedback was declared; ``info`` holds its name.
        case feedback
        /// A scene of a flow: what the user provided through a screen. The source points at the
        /// call that presented the scene; ``info`` holds the scene's name.
        case scene
    }

    /// The file, as `#fileID` gives it: `Module/File.swift`.
    public var file: String
    /// The function, as `#function` gives it.
    public var function: String
    /// The line of the call.
    public var line: UInt
    /// The column of the call.
    public var column: UInt
    /// An optional note from the caller (a gesture, a screen, a reason).
    public var info: String?
    /// Who dispatched the action.
    public var origin: Origin

    /// Creates a source; the defaults capture the caller's location.
    ///
    /// - Parameters:
    ///   - file: The file; an absolute path is shortened to `Parent/File.swift`.
    ///   - function: The function, as `#function` spells it.
    ///   - line: The line, from 1.
    ///   - column: The column, from 1.
    ///   - info: An optional note.
    ///   - origin: Who dispatched the action.
    @inlinable
    public init(
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line,
        column: UInt = #column,
        info: String? = nil,
        origin: Origin = .call
    ) {
        self.file = Self.fileID(from: file)
        self.function = function
        self.line = line
        self.column = column
        self.info = info
        self.origin = origin
    }

    /// The same source with another origin.
    ///
    /// - Parameter origin: The new origin.
    /// - Returns: A copy whose ``origin`` is `origin`.
    public func with(origin: Origin) -> ActionSource {
        var copy = self
        copy.origin = origin
        return copy
    }

    private enum CodingKeys: String, CodingKey {
        case file, function, line, column, info, origin
    }

    /// Decodes a source; `column`, `info` and `origin` may be missing (they default to 0, nil
    /// and ``Origin/call``), so sources written by simpler recorders still decode.
    ///
    /// A line or column above `Int64.max` is refused as corrupt data: every log stores them as
    /// signed 64-bit integers, and no source file has that many lines.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func position(_ key: CodingKeys) throws -> UInt? {
            guard let value = try container.decodeIfPresent(UInt.self, forKey: key) else { return nil }
            guard value <= UInt(Int64.max) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "\(key.stringValue) \(value) is above \(Int64.max)")
            }
            return value
        }
        guard let line = try position(.line) else {
            throw DecodingError.keyNotFound(CodingKeys.line, .init(codingPath: container.codingPath, debugDescription: "a source has a line"))
        }
        self.init(
            file: try container.decode(String.self, forKey: .file),
            function: try container.decode(String.self, forKey: .function),
            line: line,
            column: try position(.column) ?? 0,
            info: try container.decodeIfPresent(String.self, forKey: .info),
            origin: try container.decodeIfPresent(Origin.self, forKey: .origin) ?? .call
        )
    }

    /// Keeps `Module/File.swift` as it is and shortens an absolute path to its last two
    /// components, the closest a path gets to a `#fileID`.
    @usableFromInline
    static func fileID(from file: String) -> String {
        guard file.hasPrefix("/") else { return file }
        return file.split(separator: "/").suffix(2).joined(separator: "/")
    }
}

extension ActionSource: CustomStringConvertible {
    /// `Module/File.swift:42 function()`, followed by the origin when it is not a plain call
    /// and by the note when there is one.
    public var description: String {
        var text = "\(file):\(line) \(function)"
        if origin != .call { text += " [\(origin.rawValue)]" }
        if let info { text += " — \(info)" }
        return text
    }
}
