/// A value whose field names are chosen at run time: each new name is a new binary symbol, as
/// a new field of the app's types would be (a dictionary's keys are written inline instead).
public struct NamedFields: Codable, Equatable, Sendable {
    public var values: [String: Int]

    public init(_ values: [String: Int]) {
        self.values = values
    }

    struct Name: CodingKey {
        var stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        for (name, value) in values.sorted(by: { $0.key < $1.key }) { try container.encode(value, forKey: Name(stringValue: name)) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Name.self)
        values = try Dictionary(uniqueKeysWithValues: container.allKeys.map { ($0.stringValue, try container.decode(Int.self, forKey: $0)) })
    }
}
