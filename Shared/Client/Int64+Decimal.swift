extension Int64 {
    /// Writes the decimal text at the start of `buffer` (20 bytes or more); returns its length.
    func writeDecimal(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var magnitude = self.magnitude
        var reversed = 0   // digits are written last first, then turned around
        repeat {
            buffer[reversed] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            reversed += 1
        } while magnitude > 0
        if self < 0 {
            buffer[reversed] = UInt8(ascii: "-")
            reversed += 1
        }
        buffer[0..<reversed].reverse()
        return reversed
    }
}
