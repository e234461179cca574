import Foundation
@testable import RewindInspector
import Testing

/// The inspector's HTTP/1.1 head: what it reads, what it refuses (with which status), and what it
/// writes back.
@Suite("inspector HTTP")
struct InspectorServerTests {
    static func parse(_ text: String) -> Result<InspectorRequest, InspectorRequest.Refusal> {
        InspectorRequest.parse(head: Array(text.utf8))
    }

    @Test("a browser's request reads as its method, target and headers (names lowercased, repeats joined)")
    func reads() throws {
        let request = try Self.parse("GET /api/state?at=12&session=2 HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nX-Rewind-Token:  abc \r\nAccept: a\r\naccept: b\r\n\r\n").get()
        #expect(request.method == "GET")
        #expect(request.target == "/api/state?at=12&session=2")
        #expect(request.headers == ["host": "127.0.0.1:8765", "x-rewind-token": "abc", "accept": "a, b"])
        // Bare LF line ends (RFC 9112 §2.2 lets a server accept them) and HTTP/1.0.
        let lenient = try Self.parse("HEAD / HTTP/1.0\nHost: h\n\n").get()
        #expect(lenient.method == "HEAD" && lenient.headers["host"] == "h")
    }

    @Test("what is not a request it reads is a 400 naming why, never a trap", arguments: [
        ("", "no request line"),
        ("GET /\r\n\r\n", "the request line is not METHOD TARGET VERSION"),
        ("GET  / HTTP/1.1\r\n\r\n", "the request line is not METHOD TARGET VERSION"),
        ("G(T / HTTP/1.1\r\n\r\n", "'G(T' is not a method"),
        ("GET / HTTP/2.0\r\n\r\n", "'HTTP/2.0' is not HTTP/1.0 or HTTP/1.1"),
        ("GET http://evil.example/ HTTP/1.1\r\n\r\n", "the target must be a path, as /api/head?x=1"),
        ("GET /a\u{7F}b HTTP/1.1\r\n\r\n", "the target must be a path, as /api/head?x=1"),
        ("GET / HTTP/1.1\r\nHost h\r\n\r\n", "a header line is not NAME: VALUE"),
        ("GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", "a header line is not NAME: VALUE"),
        ("GET / HTTP/1.1\r\nBad Name: v\r\n\r\n", "a header's name is not a token"),
        ("GET / HTTP/1.1\r\n: v\r\n\r\n", "a header's name is not a token"),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "more than one Host header"),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n", "the inspector takes no request body"),
        ("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", "the inspector takes no request body"),
    ])
    func refuses(head: String, why: String) {
        guard case let .failure(refusal) = Self.parse(head) else {
            Issue.record("read: \(head.debugDescription)")
            return
        }
        #expect(refusal == .malformed(why))
        let response = InspectorRequest.Refusal.malformed(why).response
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self) == "Not a request the inspector reads: \(why).\n")
    }

    @Test("bytes that are not UTF-8 and a zero Content-Length are read, not refused")
    func oddBytes() throws {
        var head = Array("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nX-Odd: ".utf8)
        head += [0xFF, 0xFE, 0x00]
        head += Array("\r\n\r\n".utf8)
        let request = try InspectorRequest.parse(head: head).get()
        #expect(request.headers["x-odd"]?.unicodeScalars.count == 3)
    }

    @Test("the head ends at the first blank line, found however the bytes were split")
    func endOfHead() {
        let text = Array("GET / HTTP/1.1\r\nHost: h\r\n\r\nbody".utf8)
        let end = text.count - 4
        #expect(InspectorServer.endOfHead(in: text, from: 0) == end)
        // Whatever a read before held (any prefix without the whole blank line), searching
        // again from three bytes before its end finds the end.
        for held in 0..<end { #expect(InspectorServer.endOfHead(in: text, from: max(0, held - 3)) == end, "after \(held) bytes") }
        #expect(InspectorServer.endOfHead(in: Array("GET / HTTP/1.1\r\nHost: h\r\n".utf8), from: 0) == nil)
        #expect(InspectorServer.endOfHead(in: Array("GET / HTTP/1.1\n\n".utf8), from: 0) == 16)
    }

    @Test("an answer is one write: status, headers, length, Connection: close, and no body for HEAD")
    func encodes() {
        let response = InspectorResponse.json(Data(#"{"a":1}"#.utf8))
        let get = String(decoding: InspectorServer.encode(response, for: "GET"), as: UTF8.self)
        #expect(get == "HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: 7\r\nconnection: close\r\n\r\n{\"a\":1}")
        let head = String(decoding: InspectorServer.encode(response, for: "HEAD"), as: UTF8.self)
        #expect(head.hasSuffix("content-length: 7\r\nconnection: close\r\n\r\n"))
    }
}
