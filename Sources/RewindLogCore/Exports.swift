// The log stores payloads through the codecs of RewindCoding (`JSONPayloadCodec`,
// `BinaryPayloadCodec`, `PayloadCodecs`), and its public API takes and returns them: an app that
// imports RewindLog to record gets them without a second import, as it did when they lived here.
@_exported public import RewindCoding
