import Foundation
import Synchronization

/// The jobs of one inspector: every API call runs as one (``InspectorJob``), long ones at most
/// ``Inspector/Limits/running`` at a time, and calls beyond ``Inspector/Limits/calls`` are
/// refused rather than queued without bound.
final class InspectorJobs: Sendable {
    let limits: Inspector.Limits
    private let api: any InspectorAPI
    private let table = Mutex(Table())

    private struct Table {
        /// The jobs a request or a poll can reach, by id.
        var jobs: [String: InspectorJob] = [:]
        /// The jobs not yet finished, by call: asking the same call again joins its job.
        var unfinished: [InspectorCall: InspectorJob] = [:]
        /// Long jobs waiting for a turn, oldest first.
        var waiting: [InspectorJob] = []
        /// Long jobs whose work runs (cancelled ones too, until their work returns).
        var runningLong = 0
        /// Calls whose work runs or waits, reachable or not.
        var busy = 0
    }

    init(api: any InspectorAPI, limits: Inspector.Limits) {
        self.api = api
        self.limits = limits
    }

    /// The answer to `call`, or a `202` with the job to poll: joins the unfinished job of the
    /// same call, or starts one.
    func answer(_ call: InspectorCall) async -> InspectorResponse {
        let long = api.isLong(call)
        let outcome: (job: InspectorJob, start: Bool)? = table.withLock { table in
            purge(&table)
            if let job = table.unfinished[call] {
                job.asked()
                return (job, false)
            }
            guard table.busy < limits.calls else { return nil }
            let job = InspectorJob(call: call, isLong: long, limits: limits)
            table.busy += 1
            table.jobs[job.id] = job
            table.unfinished[call] = job
            guard !long || table.runningLong < limits.running else {
                table.waiting.append(job)
                return (job, false)
            }
            if long { table.runningLong += 1 }
            // Marked under the table's lock, so a purge never takes it for a waiting one.
            job.markRunning()
            return (job, true)
        }
        guard let outcome else {
            var response = InspectorResponse.error(
                "the inspector is busy: \(limits.calls) calls are running or waiting; ask again shortly", status: 503
            )
            response.headers["retry-after"] = "1"
            return response
        }
        if outcome.start { launch(outcome.job) }
        return await wait(for: outcome.job)
    }

    /// The answer of the job `id` (`GET /api/job?id=…`), or a `202` while it runs.
    func poll(_ id: String) async -> InspectorResponse {
        let job = table.withLock { table in
            purge(&table)
            return table.jobs[id]
        }
        guard let job else {
            return .error(
                "no job \(id): not one this inspector handed out, cancelled because nobody asked about it for \(limits.abandonAfter.inSeconds) s, or its answer dropped after \(max(limits.abandonAfter, limits.keepAnswersFor).inSeconds) s unasked",
                status: 404
            )
        }
        job.asked()
        return await wait(for: job)
    }

    /// How many long jobs wait for a turn, and how many run (for tests).
    var counts: (waiting: Int, runningLong: Int, busy: Int) {
        table.withLock { ($0.waiting.count, $0.runningLong, $0.busy) }
    }

    private func wait(for job: InspectorJob) async -> InspectorResponse {
        if let response = await job.answer(within: limits.answerWithin) {
            // Fetched: a job whose id nobody was given is done with; one handed out stays for
            // the others who were, until nobody asks about it.
            if !job.wasHandedOut { table.withLock { _ = $0.jobs.removeValue(forKey: job.id) } }
            return response
        }
        job.asked(handingOut: true)
        return job.pending()
    }

    /// Runs `job`'s call, which the table has marked running.
    private func launch(_ job: InspectorJob) {
        Task { [api] in
            let response = await api.answer(job.call, in: job)
            job.finish(response)
            let next = table.withLock { table in
                table.busy -= 1
                if table.unfinished[job.call] === job { table.unfinished[job.call] = nil }
                guard job.isLong else { return [InspectorJob]() }
                table.runningLong -= 1
                purge(&table)
                return startWaiting(&table)
            }
            for job in next { launch(job) }
        }
    }

    /// Takes the waiting jobs that now have a turn.
    private func startWaiting(_ table: inout Table) -> [InspectorJob] {
        var started: [InspectorJob] = []
        while table.runningLong < limits.running, !table.waiting.isEmpty {
            let job = table.waiting.removeFirst()
            table.runningLong += 1
            job.markRunning()
            started.append(job)
        }
        return started
    }

    /// Forgets abandoned jobs: a waiting one never runs, a running one is cancelled (its work
    /// stops where it checks, and keeps its turn until it returns), a finished one's answer is
    /// dropped.
    private func purge(_ table: inout Table) {
        for (id, job) in table.jobs where job.isAbandoned {
            table.jobs[id] = nil
            if table.unfinished[job.call] === job { table.unfinished[job.call] = nil }
            switch job.phase {
            case .waiting:
                table.waiting.removeAll { $0 === job }
                table.busy -= 1
                job.cancel()
            case .running:
                job.cancel()
            case .finished:
                break
            }
        }
        // Kept answers are bounded in number as well as in time: the least recently asked go.
        let kept = table.jobs.values.filter { if case .finished = $0.phase { true } else { false } }
        if kept.count > limits.calls {
            for job in kept.sorted(by: { $0.askedAt < $1.askedAt }).prefix(kept.count - limits.calls) {
                table.jobs[job.id] = nil
            }
        }
    }
}
