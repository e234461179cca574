package import Foundation

/// How one session's actions and states are encoded and stored: by its codec, kept as the codec
/// writes them (as text for a text codec), or sealed with the session's key (always a blob).
/// Every writer and reader of a session's payloads and snapshots goes through one, made by
/// ``LogReader/storage(for:)``, so a session is written and read one way.
package struct SessionStorage: Sendable {
    package let session: Int64
    package let codec: any PayloadCodec
    /// The session's seal, when it is encrypted.
    package let seal: PayloadSeal?
    package let keyID: String?
    package let path: String

    /// Whether values are stored as SQLite text (a text codec's, in the clear).
    package var isText: Bool { seal == nil && codec.isText }

    /// The bytes to store for the encoded value of kind `kind` at `seq`.
    package func stored(_ value: Data, seq: Int64, kind: PayloadSeal.Kind) throws -> Data {
        guard let seal else { return value }
        return try seal.seal(value, seq: seq, kind: kind)
    }

    /// Calls `body` with the encoded value stored in `bytes`: opened first when the session is
    /// encrypted.
    ///
    /// - Throws: ``EventLogError/authenticationFailed(path:session:seq:what:)`` when a sealed
    ///   value does not open; what `body` throws.
    package func withEncoded<T>(
        _ bytes: UnsafeRawBufferPointer, seq: Int64, kind: PayloadSeal.Kind, what: @autoclosure () -> String,
        _ body: (UnsafeRawBufferPointer) throws(EventLogError) -> T
    ) throws(EventLogError) -> T {
        guard let seal else { return try body(bytes) }
        return try withOpened(seal, bytes, seq: seq, kind: kind, what: what(), body)
    }

    /// ``withEncoded(_:seq:kind:what:_:)`` for a sealed session. Out of line: in the callers'
    /// unspecialised code, the `Result<T, EventLogError>` it needs had its metadata looked up
    /// on every call, sealed or not — about 7 % of reading and decoding a clear binary log
    /// (`rewind-bench --workload replay`, profiled).
    @inline(never)
    private func withOpened<T>(
        _ seal: PayloadSeal, _ bytes: UnsafeRawBufferPointer, seq: Int64, kind: PayloadSeal.Kind, what: @autoclosure () -> String,
        _ body: (UnsafeRawBufferPointer) throws(EventLogError) -> T
    ) throws(EventLogError) -> T {
        guard let opened = seal.open(bytes, seq: seq, kind: kind) else {
            throw .authenticationFailed(path: path, session: session, seq: seq, what: what())
        }
        return try opened.withUnsafeBytes { raw in Result { () throws(EventLogError) in try body(raw) } }.get()
    }

    /// The encoded value stored in `bytes` (opened when the session is encrypted).
    package func encoded(_ bytes: Data, seq: Int64, kind: PayloadSeal.Kind, what: @autoclosure () -> String) throws(EventLogError) -> Data {
        guard seal != nil else { return bytes }
        return try bytes.withUnsafeBytes { raw in
            Result { () throws(EventLogError) in try withEncoded(raw, seq: seq, kind: kind, what: what()) { Data($0) } }
        }.get()
    }
}

extension LogReader {
    /// Whether `session`'s values are stored as text (a text codec's, in the clear): the one
    /// thing about its storage that needs no key.
    package func storesText(_ session: LogSession) -> Bool {
        session.encryption == nil && (codecs[session.codec]?.isText ?? false)
    }

    /// How `session`'s values are encoded and stored, with its key when it is encrypted.
    ///
    /// - Throws: ``EventLogError/unknownCodec(path:session:codec:)``;
    ///   ``EventLogError/keyMissing(path:session:keyID:)`` when the log was not given the
    ///   session's key; ``EventLogError/wrongKey(path:session:keyID:)`` when the key given by
    ///   that id is another.
    package func storage(for session: LogSession) throws(EventLogError) -> SessionStorage {
        guard let codec = codecs[session.codec] else {
            throw .unknownCodec(path: path, session: session.id, codec: session.codec)
        }
        guard let encryption = session.encryption else {
            return SessionStorage(session: session.id, codec: codec, seal: nil, keyID: nil, path: path)
        }
        guard encryption.salt.count == PayloadSeal.saltSize, encryption.check.count == PayloadSeal.checkSize else {
            throw .corrupt(path: path, detail: "session \(session.id)'s key salt or check has the wrong size")
        }
        guard let key = keys[encryption.keyID] else {
            throw .keyMissing(path: path, session: session.id, keyID: encryption.keyID)
        }
        guard let seal = PayloadSeal(key: key, encryption: encryption) else {
            throw .wrongKey(path: path, session: session.id, keyID: encryption.keyID)
        }
        return SessionStorage(session: session.id, codec: codec, seal: seal, keyID: encryption.keyID, path: path)
    }
}
