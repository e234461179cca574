import Foundation

/// The old spellings of options a tool's vocabulary replaced (see <doc:BuildingYourOwnReplayTool>,
/// "One vocabulary"). Each stays for a release as a hidden alias; using
/// it prints one note on standard error naming the spelling that replaces it, and works as
/// the new one does. An app's own commands can use it for their renamed options too.
public enum Deprecated {
    /// Notes on standard error that `old` is spelled `new` now, e.g.
    /// `Deprecated.note("--skip", use: "--without")`.
    public static func note(_ old: String, use new: String) {
        FileHandle.standardError.write(Data("warning: \(old) is deprecated and will be removed in the next release; use \(new)\n".utf8))
    }

    /// The value given by its new spelling, else by its old one (noted when given).
    static func merged<Value>(_ new: Value?, old: Value?, _ oldName: String, use newName: String) -> Value? {
        if let old {
            note(oldName, use: newName)
            return new ?? old
        }
        return new
    }
}
