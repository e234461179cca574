import Synchronization

/// The coding keys of one log, numbered: payloads carry the numbers, the log's `symbols` table
/// the strings. New symbols are stored in the same transaction as the first payload using them.
final class SymbolTable: Sendable {
    struct Contents: Sendable {
        var ids: [String: UInt32] = [:]
        /// `names[id - 1]` is symbol `id`.
        var names: [String] = []
        /// Symbols up to this id are known to be in the log file.
        var persisted: UInt32 = 0
        /// How many of `names` are empty slots: ids another writer took that this table has
        /// not read yet.
        var holes = 0
        /// `ids` for the encoder's look-ups, rebuilt on first use after `ids` changes.
        var index: SymbolIndex?
        /// `names` for decoding passes, rebuilt on first use after `names` changes.
        var decodingNames: SymbolNames?

        /// The names for a decoding pass, made now if they changed since the last one.
        mutating func namesForDecoding() -> SymbolNames {
            if let decodingNames { return decodingNames }
            let made = SymbolNames(names)
            decodingNames = made
            return made
        }
    }

    let contents = Mutex(Contents())
    /// Bumped whenever `names` changes, so a decoder holding a copy of it (see
    /// ``BinaryPayloadCodec/decoder(for:)``) knows when to take a new one without the lock.
    let changes = Atomic<UInt64>(0)

    /// The number of `name`, interning it if it is new.
    func id(for name: String) -> UInt32 {
        contents.withLock { contents in
            if let id = contents.ids[name] { return id }
            contents.names.append(name)
            let id = UInt32(contents.names.count)
            contents.ids[name] = id
            contents.index = nil
            contents.decodingNames = nil
            changes.add(1, ordering: .releasing)
            return id
        }
    }

    /// A copy of the id→name table, for a decoding pass.
    var names: [String] {
        contents.withLock { $0.names }
    }

    /// The id→name table for a decoding pass.
    var namesForDecoding: SymbolNames {
        contents.withLock { $0.namesForDecoding() }
    }

    /// The id→name table for a decoding pass and the count of changes it reflects.
    var namesAndChanges: (names: SymbolNames, changes: UInt64) {
        contents.withLock { ($0.namesForDecoding(), changes.load(ordering: .acquiring)) }
    }

    /// Every symbol known so far, for look-ups without the lock.
    var index: SymbolIndex {
        contents.withLock { contents in
            if let index = contents.index { return index }
            let index = SymbolIndex(names: contents.ids)
            contents.index = index
            return index
        }
    }

    /// Symbols read from the log (by any writer), marked persisted.
    ///
    /// - Throws: ``SymbolTableDamage`` when a known id has another name in the file (payloads
    ///   would decode with the wrong key names) or an id is out of range; the table is left as
    ///   it was.
    func learn(_ symbols: [CodecSymbol]) throws {
        try contents.withLock { contents in
            // Writers number densely: a gap is another writer's few symbols not read yet, never
            // millions. The bound is on the slots left empty after this call, whatever came
            // before it, so symbols learned one at a time (an import, a line each) cannot add
            // up to more than `largestGap` empty slots either.
            var landing = Set<Int64>()
            for symbol in symbols {
                guard symbol.id >= 1, symbol.id <= Int64(UInt32.max) else { throw SymbolTableDamage.outOfRange(id: symbol.id) }
                guard symbol.id <= contents.names.count else {
                    landing.insert(symbol.id)
                    continue
                }
                let known = contents.names[Int(symbol.id) - 1]
                if known.isEmpty { landing.insert(symbol.id) }
                if !known.isEmpty && known != symbol.name {
                    throw SymbolTableDamage.conflict(id: symbol.id, inFile: symbol.name, known: known)
                }
            }
            let count = max(Int64(contents.names.count), symbols.map(\.id).max() ?? 0)
            let holes = count - (Int64(contents.names.count - contents.holes) + Int64(landing.count))
            guard holes <= Self.largestGap else {
                throw SymbolTableDamage.outOfRange(id: symbols.map(\.id).max() ?? 0)
            }
            for symbol in symbols.sorted(by: { $0.id < $1.id }) {
                let id = UInt32(symbol.id)
                if id <= contents.names.count {
                    // Known, or a gap filled earlier: the name is the file's.
                    if contents.names[Int(id) - 1].isEmpty {
                        contents.names[Int(id) - 1] = symbol.name
                        contents.ids[symbol.name] = id
                    }
                } else if id == contents.names.count + 1 {
                    contents.names.append(symbol.name)
                    contents.ids[symbol.name] = id
                } else if id > contents.names.count {
                    // A gap (another writer's symbols we have not read yet): fill it so ids line up.
                    while contents.names.count < id - 1 { contents.names.append("") }
                    contents.names.append(symbol.name)
                    contents.ids[symbol.name] = id
                }
                contents.persisted = max(contents.persisted, id)
            }
            contents.holes = Int(holes)
            contents.index = nil
            contents.decodingNames = nil
            changes.add(1, ordering: .releasing)
        }
    }

    /// The most ids a table leaves unread between the ones it knows (a few hundred bytes of
    /// memory each at most): far more than writers racing ever leave, far less than memory.
    static var largestGap: Int64 { 65_536 }

    /// Symbols not yet known to be in the log file.
    func unpersisted() -> [CodecSymbol] {
        contents.withLock { contents in
            guard contents.persisted < contents.names.count else { return [] }
            return (Int(contents.persisted)..<contents.names.count).map { CodecSymbol(id: Int64($0 + 1), name: contents.names[$0]) }
        }
    }

    /// Forgets symbols assigned after the last stored one: their transaction rolled back, and
    /// another writer may take those ids.
    func forgetUnpersisted() {
        contents.withLock { contents in
            while contents.names.count > contents.persisted {
                contents.ids[contents.names.removeLast()] = nil
            }
            contents.index = nil
            contents.decodingNames = nil
            changes.add(1, ordering: .releasing)
        }
    }

    /// Marks symbols up to `id` as stored (after their transaction committed).
    func markPersisted(upTo id: Int64) {
        contents.withLock { $0.persisted = max($0.persisted, UInt32(id)) }
    }
}
