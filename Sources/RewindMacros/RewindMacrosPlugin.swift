import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin holding Rewind's macros.
@main
struct RewindMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [BinaryCodableMacro.self]
}
