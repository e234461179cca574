import Rewind
import Testing

@Suite("SeededRandom")
struct SeededRandomTests {
    @Test("produces the SplitMix64 reference sequence, so seeds replay on every toolchain")
    func referenceSequence() {
        var random = SeededRandom(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(random.next() == 0x06C4_5D18_8009_454F)
    }

    @Test("bounded draws cover the whole range and stay inside it")
    func boundedDraws() {
        var random = SeededRandom(seed: 42)
        var seen = Set<Int>()
        for _ in 0..<2_000 {
            let value = random.int(below: 10)
            #expect((0..<10).contains(value))
            seen.insert(value)
        }
        #expect(seen == Set(0..<10))
        var ranged = Set<Int>()
        for _ in 0..<500 { ranged.insert(random.int(in: 3...5)) }
        #expect(ranged == [3, 4, 5])
    }

    @Test("uuids are version 4 and differ")
    func uuids() {
        var random = SeededRandom(seed: 1)
        let first = random.uuid(), second = random.uuid()
        #expect(first != second)
        #expect(first.uuidString.dropFirst(14).first == "4")
    }

    @Test("a RandomNumberGenerator: the standard library's draws from one seed repeat, from another differ")
    func standardLibrary() {
        func draws(_ seed: UInt64) -> [Int] {
            var random = SeededRandom(seed: seed)
            return (0..<50).map { _ in (0..<1_000).randomElement(using: &random)! } + Array(0..<20).shuffled(using: &random)
        }
        #expect(draws(7) == draws(7))
        #expect(draws(7) != draws(8))
    }
}
