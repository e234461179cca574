/// How a row being written names another event (its cause, the root of its chain): by seq when
/// that event is committed, or by its place among the events of the same write, which have no
/// seq until the log gives them theirs (``RecordingLog/write(session:_:)``).
@usableFromInline
package enum EventLink: Sendable, Hashable {
    /// An event already in the log.
    case seq(Int64)
    /// The event `n` events before this one in the same write; `earlier(0)` is the event itself.
    case earlier(Int)

    /// How many seqs back from `seq` the linked event is (what the SQLite log stores); `nil`
    /// for a link that does not point back, which no cause does.
    package func distance(from seq: Int64) -> Int64? {
        switch self {
        case let .seq(linked): linked >= 1 && linked <= seq ? seq - linked : nil
        case let .earlier(back): Int64(back) < seq ? Int64(back) : nil
        }
    }
}
