import Foundation
import Testing

/// The privacy manifests (`PrivacyInfo.xcprivacy`) of the modules an app links: each declares
/// exactly the required-reason API categories its code calls, and ships as a resource.
@Suite("privacy manifests")
struct PrivacyManifestTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The modules that end up in an app (not the tool's, the server's or the tests').
    static let appModules = ["Rewind", "RewindCodingCore", "RewindCoding", "RewindLogCore", "RewindSQLite", "RewindLog", "RewindReplay", "RewindFeedback", "RewindOpenCombine"]

    /// Apple's required-reason API categories, and the calls of each that Swift code would make.
    static let categories: [String: [String]] = [
        "NSPrivacyAccessedAPICategoryFileTimestamp": [
            "attributesOfItem", ".modificationDate", ".creationDate", "contentModificationDate", "creationDateKey",
            "fileModificationDate", "getattrlist", " stat(", "fstat(", "lstat(", "fstatat(",
        ],
        "NSPrivacyAccessedAPICategorySystemBootTime": ["systemUptime", "mach_absolute_time"],
        "NSPrivacyAccessedAPICategoryDiskSpace": ["volumeAvailableCapacity", "volumeTotalCapacity", "systemFreeSize", "statfs(", "statvfs("],
        "NSPrivacyAccessedAPICategoryUserDefaults": ["UserDefaults"],
        "NSPrivacyAccessedAPICategoryActiveKeyboards": ["activeInputModes"],
    ]

    /// The categories a module's code calls, from its sources (comments included: a mention
    /// costs a look, a miss costs an App Store rejection).
    static func used(by module: String) throws -> Set<String> {
        let folder = root.appendingPathComponent("Sources/\(module)")
        var text = ""
        for case let file as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)! where file.pathExtension == "swift" {
            text += try String(contentsOf: file, encoding: .utf8)
        }
        return Set(categories.filter { _, calls in calls.contains { text.contains($0) } }.keys)
    }

    /// The categories a module's manifest declares, each with its reasons.
    static func declared(by module: String) throws -> [String: [String]]? {
        let url = root.appendingPathComponent("Sources/\(module)/PrivacyInfo.xcprivacy")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        #expect(plist["NSPrivacyTracking"] as? Bool == false, "\(module) does not track")
        #expect((plist["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true, "\(module) collects nothing")
        let types = try #require(plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: try types.map { entry in
            (try #require(entry["NSPrivacyAccessedAPIType"] as? String), try #require(entry["NSPrivacyAccessedAPITypeReasons"] as? [String]))
        })
    }

    @Test("every module an app links declares the required-reason APIs its code calls, and no others, with the app-container reason")
    func declaredAsUsed() throws {
        for module in Self.appModules {
            let used = try Self.used(by: module)
            let declared = try Self.declared(by: module)
            #expect(Set(declared?.keys.map { $0 } ?? []) == used, "\(module): calls \(used.sorted()), declares \(declared?.keys.sorted() ?? [])")
            for (category, reasons) in declared ?? [:] {
                // Rewind reads its own log and key files, inside the app's container.
                #expect(reasons == (category == "NSPrivacyAccessedAPICategoryFileTimestamp" ? ["C617.1"] : reasons), "\(module) \(category)")
                #expect(!reasons.isEmpty, "\(module) \(category) gives a reason")
            }
        }
    }

    @Test("a manifest ships with its module: the build copies it into the module's resource bundle, unchanged")
    func shipped() throws {
        // The bundles sit beside the test runner, as beside an app's binary.
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let bundles = try FileManager.default.contentsOfDirectory(atPath: products.path)
        for module in Self.appModules where try Self.declared(by: module) != nil {
            let bundle = try #require(bundles.first { $0.hasSuffix("_\(module).resources") }, "\(module)'s resources in \(products.path)")
            let shipped = try Data(contentsOf: products.appendingPathComponent("\(bundle)/PrivacyInfo.xcprivacy"))
            #expect(shipped == (try Data(contentsOf: Self.root.appendingPathComponent("Sources/\(module)/PrivacyInfo.xcprivacy"))), "\(module)")
        }
    }
}
