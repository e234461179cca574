/// How many events a reader asks of a log in one page, so that a page's payloads come to about
/// `bytes` however large they are: the first page, whose payloads are not known yet, `first`
/// events; each page after it as many as `bytes` of the largest payload just read would make,
/// from one to `maximum`.
///
/// The sizes are known once read, so a run of large payloads right after small ones comes in one
/// page of the small ones' size: the bound holds to within a page. The readers that page a log
/// use it — ``EventCursor``, a replay read in place from PostgreSQL, a push's batches, a pull's
/// pages — so that a log of megabyte payloads is read a few events at a time, not hundreds.
package struct PageSizing: Sendable {
    /// Events in the first page.
    package let first: Int
    /// Events in a page at most.
    package let maximum: Int
    /// The payload bytes a page is sized for.
    package let bytes: Int

    package init(first: Int, maximum: Int, bytes: Int) {
        (self.first, self.maximum, self.bytes) = (min(first, maximum), maximum, bytes)
    }

    /// The events of the next page, after one whose largest payload was `largest` bytes, to
    /// fill `bytes` (this sizing's own by default: a reader bounding a sum of pages passes
    /// what it has left).
    package func next(largest: Int, filling bytes: Int? = nil) -> Int {
        min(maximum, max(1, (bytes ?? self.bytes) / max(largest, 1)))
    }

    /// The events of the page after `page`: ``first`` when nothing was read yet, else sized by
    /// its largest payload (see ``next(largest:filling:)``).
    package func next(after page: [LoggedEvent], filling bytes: Int? = nil) -> Int {
        page.isEmpty ? first : next(largest: page.reduce(0) { max($0, $1.payload?.count ?? 0) }, filling: bytes)
    }
}
