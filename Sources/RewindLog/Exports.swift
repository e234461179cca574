// RewindLog is the one import an app records with: the log's core (the model, the protocols,
// the recorder) and its embedded store (`EventLog`, a SQLite file). A store of another kind,
// or a module that only reads, depends on RewindLogCore alone.
@_exported public import RewindLogCore
@_exported public import RewindSQLite
