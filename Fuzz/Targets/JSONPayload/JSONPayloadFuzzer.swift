import Foundation
import FuzzDriver
import RewindCoding

/// The JSON codec's generated readers against Foundation's `JSONDecoder` on arbitrary bytes:
/// the codec must decode exactly the value Foundation decodes, or throw exactly Foundation's
/// error (its description: case, coding path and message). A difference traps, so libFuzzer
/// keeps it as a finding, as it does a crash, a hang or a runaway allocation.
@_cdecl("fuzz_json_payload_main")
func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(jsonPayloadFuzzer, argc: argc, argv: argv)
}

func jsonPayloadFuzzer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    compare(JSONAction.self, bytes)
    compare([JSONLine].self, bytes)
    return 0
}

/// Decodes `bytes` both ways and traps on a difference.
func compare<T: Codable>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer) {
    let ours = outcome { try codec.decode(T.self, from: bytes) }
    let foundation = outcome { try JSONDecoder().decode(T.self, from: Data(bytes)) }
    if ours != foundation {
        fatalError("the JSON codec and Foundation differ on \(String(decoding: bytes, as: UTF8.self)): \(ours) against \(foundation)")
    }
}

/// A value as Foundation's encoder writes it (so 0.0 and -0.0 differ), or an error's description.
func outcome<T: Codable>(_ decode: () throws -> T) -> String {
    do {
        return "value " + String(decoding: try encoder.encode([try decode()]), as: UTF8.self)
    } catch {
        return "error \(error)"
    }
}

private let codec = JSONPayloadCodec()
private let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return encoder
}()

/// An app's action shapes, as in FuzzSupport's `GeneratedAction` but without a `Set` (whose
/// order two decodings need not share): nested enums, labelled and unlabelled values,
/// optionals, arrays, a dictionary, UUIDs, dates, data, every integer width, doubles, floats.
@BinaryCodable
enum JSONAction: Codable {
    case cart(JSONCart)
    case load(at: Date, page: Int?)
    case rename(UUID, String)
    case batch([JSONCart])
    case counts([String: Int], data: Data?)
    case filter(JSONFilter, level: JSONLevel?)
    case widths(Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, UInt)
    case reset
}

@BinaryCodable
enum JSONCart: Codable {
    case add(productID: String, quantity: Int, note: String?)
    case line(JSONLine)
    case clear
}

@BinaryCodable
struct JSONLine: Codable {
    var id: UUID
    var price: Double
    var weight: Float?
    var quantities: [Int8]
    var nested: [[String?]]
    var flag: Bool?
}

@BinaryCodable
enum JSONFilter: String, Codable {
    case all, active, done
}

@BinaryCodable
enum JSONLevel: Int, Codable {
    case low = 1, high = 300
}
