// The log stores payloads through the codecs of RewindCodingCore (`JSONPayloadCodec`,
// `BinaryPayloadCodec`, `PayloadCodecs`), and its public API takes and returns them: an app that
// imports RewindLog to record gets them without a second import. The `@BinaryCodable` macro is
// RewindCoding's: an app that marks its types imports it (and so builds swift-syntax for the
// macro's plugin); one that does not, builds none.
@_exported public import RewindCodingCore
