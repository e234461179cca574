import Foundation
import RewindReplay

/// A replay tool run as a child to profile a log: the baseline of `rewind profile --baseline`,
/// and this tool itself, so that both builds are measured the same way (a fresh process each
/// run, the same arguments).
struct ProfilingTool {
    /// The executable's path.
    let path: String
    /// What reports call it: `baseline`, `this build`.
    let role: String

    init(path: String, role: String) {
        (self.path, self.role) = (path, role)
    }

    /// Finds `name`: a path (with a `/`), or a name searched on `PATH`.
    init(named name: String, role: String) throws {
        let candidates = name.contains("/")
            ? [name]
            : (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) && !Self.isDirectory($0) }) else {
            throw InputError("--baseline \(name): no executable " + (name.contains("/") ? "at that path" : "of that name on PATH"))
        }
        self.init(path: found, role: role)
    }

    /// This command's arguments as each run takes them: from the subcommand on, without the
    /// comparing options, with `--json`.
    static func arguments(forRunsOf commandLine: [String]) -> [String] {
        let given = commandLine.dropFirst().drop { $0 != "profile" }
        var kept: [String] = []
        var skipValue = false
        for argument in given {
            if skipValue { skipValue = false; continue }
            if ["--baseline", "--runs", "--threshold"].contains(argument) { skipValue = true; continue }
            if ["--baseline=", "--runs=", "--threshold="].contains(where: { argument.hasPrefix($0) }) || argument == "--json" { continue }
            kept.append(argument)
        }
        return kept + ["--json"]
    }

    /// Runs the tool with `arguments` and reads the profile it prints.
    ///
    /// - Throws: ``InputError`` naming the tool and its own error when it fails or answers
    ///   with something other than a profile (a build without `profile`, another app).
    func profile(_ arguments: [String]) throws -> ReplayProfile {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        // Errors to a file, read once the run ends: two pipes read one after the other could
        // each fill while the other is read.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-profile-\(UUID().uuidString).stderr")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil), let errorHandle = try? FileHandle(forWritingTo: errors) else {
            throw InputError("cannot create a temporary file for \(role)'s errors at \(errors.path)")
        }
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardError = errorHandle
        do { try process.run() } catch { throw InputError("\(role) \(path) cannot be run: \(error.localizedDescription)") }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? errorHandle.close()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let said = (try? String(contentsOf: errors, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let how = process.terminationReason == .exit ? "exited \(process.terminationStatus)" : "was killed by signal \(process.terminationStatus)"
            throw InputError("\(role) \(path) \(how) profiling the log" + (said.isEmpty ? "" : ":\n" + said))
        }
        do {
            return try JSONDecoder().decode(ReplayProfile.self, from: printed)
        } catch {
            throw InputError("\(role) \(path) did not answer with a profile (is it a replay tool with `profile`, of the same app?)")
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }
}
