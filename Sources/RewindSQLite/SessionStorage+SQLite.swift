import Foundation
import GRDB
import RewindLogCore

extension SessionStorage {
    /// The column value to store for the encoded value of kind `kind` at `seq`.
    func databaseValue(_ value: Data, seq: Int64, kind: PayloadSeal.Kind) throws -> DatabaseValue {
        isText ? String(decoding: value, as: UTF8.self).databaseValue : try stored(value, seq: seq, kind: kind).databaseValue
    }

    /// The columns to store for an encoded state, the snapshot at `seq`: deflated when the
    /// session is not sealed and that saves space (``SnapshotCompression``; `deflation`, when
    /// it was made ahead), otherwise as ``databaseValue(_:seq:kind:)`` stores any value.
    func snapshotColumns(
        _ value: Data, deflation: SnapshotCompression.Deflation = .notMade, seq: Int64
    ) throws -> (state: DatabaseValue, compression: String?) {
        if seal == nil, let deflated = deflation.stored(value) {
            return (deflated.databaseValue, SnapshotCompression.name)
        }
        return (try databaseValue(value, seq: seq, kind: .snapshot), nil)
    }
}
