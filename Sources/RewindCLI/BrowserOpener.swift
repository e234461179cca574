import Foundation

/// Opens a URL in the user's browser, for `serve --open`: the command in `BROWSER` (the usual
/// convention: entries separated by `:`, `%s` standing for the URL, else the URL appended),
/// else `open` on macOS, else `xdg-open` where a display is reachable. On a machine with none
/// of these (a server over SSH) it says so, and the URL printed above is the way in.
///
/// The browser is started on its own and never waited for; the URL, token included, is on its
/// command line for as long as the opener runs.
enum BrowserOpener {
    /// Opens `url`; a sentence for standard error when it could not.
    static func open(_ url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let (executable, arguments) = command(for: url.absoluteString, environment: environment) else {
            return "--open: no browser to open here (no BROWSER, no `open`, and no display for xdg-open); open the URL above yourself"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // Reaped when it ends; serving never waits on it.
        process.terminationHandler = { _ in }
        do {
            try process.run()
        } catch {
            return "--open: could not start \(executable) (\(error.localizedDescription)); open the URL above yourself"
        }
        return nil
    }

    /// The program and its arguments that open `url`, or `nil` when there is none.
    static func command(for url: String, environment: [String: String]) -> (String, [String])? {
        if let browsers = environment["BROWSER"], !browsers.isEmpty {
            for entry in browsers.split(separator: ":") {
                var words = entry.split(separator: " ").map(String.init)
                guard let program = words.first, let path = executable(program, environment: environment) else { continue }
                words.removeFirst()
                let arguments = words.contains { $0.contains("%s") } ? words.map { $0.replacingOccurrences(of: "%s", with: url) } : words + [url]
                return (path, arguments)
            }
        }
        #if canImport(Darwin)
        return ("/usr/bin/open", [url])
        #else
        let display = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        guard display, let opener = executable("xdg-open", environment: environment) else { return nil }
        return (opener, [url])
        #endif
    }

    /// `name`'s path: itself when it has a slash, else the first executable on `PATH`.
    private static func executable(_ name: String, environment: [String: String]) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
