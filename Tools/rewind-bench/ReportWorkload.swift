import Foundation
import Rewind
import RewindExamples
import RewindLog

/// `report`: what a field report costs, with the default options (2,000 events before the
/// trigger, 512 KiB): sealing one from a shop log recorded with the default configuration — the
/// work the writer thread does at the launch after a crash, and `recorder.report(note:)` on a
/// Dispatch thread — and opening one, against the portable export of the same window (what a
/// report holds, before the scan, deflating and sealing). Also its size, against the export's.
struct ReportWorkload {
    var session: [DispatchedAction<ShopAction>]
    var actions: Int
    var runs: Int

    func measure() throws -> WorkloadResult {
        let path = TemporaryLog.path("report")
        defer { TemporaryLog.remove(path) }
        do {
            let recorder = Recorder<ShopState, ShopAction>(log: try EventLog(path: path), app: AppIdentity(id: "com.example.shop"))
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            for index in 0..<actions {
                let dispatched = session[index % session.count]
                store.dispatch(dispatched.action, from: dispatched.source)
            }
            try recorder.close()
        }
        let log = try EventLog(path: path, mode: .readOnly)
        let keys = try ReportKey.generate(id: "bench")
        let options = ReportOptions(key: keys.publicKey)
        let reportPath = TemporaryLog.path("report-file")
        defer { TemporaryLog.remove(reportPath) }
        var exportTimes: [Double] = [], sealTimes: [Double] = [], openTimes: [Double] = []
        var exportBytes = 0, sealed = Data(), details: ReportDetails?
        for run in 0...runs {
            // The same window the report keeps, exported as it is.
            let preview = try log.previewReport(session: 1, reason: ReportReason(kind: .crash, name: "SIGSEGV"), options: options)
            details = preview.details
            var window = EventFilter()
            window.session = 1
            window.seqs = (preview.details.firstSeq ?? 1)...(preview.details.lastSeq ?? 1)
            let exportURL = URL(fileURLWithPath: TemporaryLog.path("report-export"))
            let exportTime = try time { _ = try log.export(to: exportURL, filter: window) }
            exportBytes = (try FileManager.default.attributesOfItem(atPath: exportURL.path)[.size] as? NSNumber)?.intValue ?? 0
            TemporaryLog.remove(exportURL.path)
            let sealTime = try time {
                sealed = try log.sealReport(session: 1, reason: ReportReason(kind: .crash, name: "SIGSEGV"), options: options)
            }
            TemporaryLog.remove(reportPath)
            try sealed.write(to: URL(fileURLWithPath: reportPath))
            let openTime = try time { _ = try EventLog.openingReport(at: reportPath, keys: LogKeys(others: [keys.privateKey])) }
            guard run > 0 else { continue }  // the first is a warm-up
            exportTimes.append(exportTime)
            sealTimes.append(sealTime)
            openTimes.append(openTime)
        }
        let baseline = median(exportTimes)
        let kept = details?.keptEvents ?? 0
        return WorkloadResult(
            name: "report (a crash report of the last \(kept) events of a \(actions)-action shop session; default configuration and options)",
            baseline: "the portable export of the same window",
            variants: [
                .init(name: "export of the window (baseline)", value: baseline, unit: "ms", ratioToBaseline: 1, runs: exportTimes),
                .init(name: "seal a report (scan, deflate, HPKE)", value: median(sealTimes), unit: "ms", ratioToBaseline: median(sealTimes) / baseline, runs: sealTimes),
                .init(name: "open a report as a log (--key-file)", value: median(openTimes), unit: "ms", ratioToBaseline: median(openTimes) / baseline, runs: openTimes),
                .init(name: "size: the export", value: Double(exportBytes) / 1024, unit: "KiB", ratioToBaseline: nil, runs: [Double(exportBytes) / 1024]),
                .init(name: "size: the sealed report", value: Double(sealed.count) / 1024, unit: "KiB", ratioToBaseline: Double(sealed.count) / Double(max(exportBytes, 1)), runs: [Double(sealed.count) / 1024]),
            ],
            notes: details?.exceedsBound == true ? ["the report exceeds its bound even at its smallest window"] : []
        )
    }

    private func time(_ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        return (ContinuousClock.now - start).inMilliseconds
    }
}
