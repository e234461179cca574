// RewindCoding is what an app marks its types with: the `@BinaryCodable` macro, and the codecs
// and the readers and writers its code calls (RewindCodingCore, re-exported). The log and its
// stores depend on RewindCodingCore alone, so that an app that records without the macro does
// not build swift-syntax (the macro's compiler plugin is built from it, for the host).
@_exported public import RewindCodingCore
