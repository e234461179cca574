/// A row that does not hold what the schema says — NULL where a value must be, a value of
/// another type, bounds the wrong way round, a snapshot that does not inflate — as a tampered
/// or damaged log can. Reported as ``EventLogError/corrupt(path:detail:)``, naming the column
/// (never the value: it may be a payload).
package struct RowDamage: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
