/// One API call, as the inspector received it: `GET /api/state?at=12` is the endpoint
/// `state` with the parameter `at` = `12`.
public struct InspectorCall: Sendable, Hashable {
    /// The path after `/api/`.
    public var endpoint: String
    /// The query's items, in order; a name may repeat (`skip=11&skip=12`).
    public var parameters: [Parameter]

    /// One query item.
    public struct Parameter: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(endpoint: String, parameters: [Parameter] = []) {
        self.endpoint = endpoint
        self.parameters = parameters
    }

    /// The last value given for `name`, if any.
    public subscript(name: String) -> String? {
        parameters.last { $0.name == name }?.value
    }
}
