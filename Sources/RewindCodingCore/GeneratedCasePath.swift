/// Case-path steps for generated code: a case name, followed by its first value's own path.
public enum GeneratedCasePath {
    /// `name`, then the payload's case path when it is an enum.
    public static func joining<Payload: BinaryCodable>(_ name: String, _ payload: Payload) -> String? {
        // A struct or a number as the first value ends the path here.
        guard Payload.generatesCasePath else { return name }
        return payload.generatedCasePath.map { name + "." + $0 }
    }

    /// An optional payload: `Codable` leaves a `nil` one out (the path ends at `name`) and
    /// writes a present one as the value itself.
    public static func joining<Wrapped: BinaryCodable>(_ name: String, _ payload: Wrapped?) -> String? {
        guard let payload else { return name }
        return joining(name, payload)
    }

    /// A payload without generated code: whether and how it continues the path is not known here.
    public static func joining<Payload>(_ name: String, _ payload: Payload) -> String? { nil }
}
