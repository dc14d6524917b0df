import Testing

@testable import L2CAP

@Suite("FIFO")
struct FIFOTests {
    @Test("keeps order across compaction, removes from the middle, empties")
    func order() {
        var fifo = FIFO<Int>()
        for value in 0..<5000 { fifo.push(value) }
        for value in 0..<3000 { #expect(fifo.pop() == value) }
        #expect(fifo.count == 2000)
        #expect(fifo.first == 3000)
        #expect(fifo.remove { $0 == 4000 } == 4000)
        #expect(fifo.remove { $0 == 4000 } == nil)
        fifo.push(5000)
        let rest = fifo.removeAll()
        #expect(rest == Array(3000..<4000) + Array(4001...5000))
        #expect(fifo.isEmpty && fifo.pop() == nil)
    }
}
