// Every test that imports the support module also sees the process helpers (built products,
// `rewind serve` as a process, resident memory), which live in a module of their own so that
// release builds of the tools can use them too: this module's `@testable` imports cannot be
// built in release.
@_exported import RewindTestProcesses
