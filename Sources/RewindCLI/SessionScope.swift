import ArgumentParser
import RewindLog

/// `--session N` on the commands that take points (`state`, `diff`, `replay`): every point
/// must be in that session, and a point left out means its last event — the vocabulary's one
/// spelling of a session, where the others say `--session` too.
struct SessionScope: ParsableArguments {
    @Option(help: ArgumentHelp("Only this session: the seqs given must be in it (without --at, its last event).", valueName: "n"))
    var session: Int64?

    func validate() throws {
        try InputError.requirePositive(session, "--session", what: "a session number")
    }

    /// `at`, checked against the session; or, when not given, the session's last event.
    func point(_ at: Int64?, in log: any LogReader) throws -> Int64 {
        guard let session else {
            guard let at else { throw InputError("give --at SEQ, or --session N for its last event") }
            return at
        }
        let found = try log.session(session)
        guard let at else {
            guard let last = found.seqRange?.upperBound else { throw InputError("\(log.path): session \(session) has no events") }
            return last
        }
        try check([at], in: found, log: log)
        return at
    }

    /// Checks that `seqs` are in the session, when one was given.
    func check(_ seqs: [Int64], in log: any LogReader) throws {
        guard let session else { return }
        try check(seqs, in: try log.session(session), log: log)
    }

    private func check(_ seqs: [Int64], in session: LogSession, log: any LogReader) throws {
        for seq in seqs where !(session.seqRange?.contains(seq) ?? false) {
            throw EventLogError.seqOutsideSession(path: log.path, seq: seq, session: session.id, sessionSeqs: session.seqRange)
        }
    }
}
