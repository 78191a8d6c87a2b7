import Schema

extension LivePush {
    /// The push in requests of about `maxBytes` of messages each (at least one message each), so that
    /// none is refused by the gateway as too large on its way to another channel process.
    func parts(maxBytes: Int) -> [LivePush] {
        var parts: [LivePush] = []
        var current = LivePush(closes: closes)
        var bytes = 0
        // A broadcast repeats one message for every device: it is measured once.
        var sizes: [String: Int] = [:]
        for send in sends {
            for entry in send.entries {
                let size = sizes[entry.msgID] ?? WireCodec.encode(entry).count + 128
                sizes[entry.msgID] = size
                if bytes > 0 && bytes + size > maxBytes {
                    parts.append(current)
                    current = LivePush()
                    bytes = 0
                }
                if current.sends.last?.registrationID == send.registrationID && current.sends.last?.at == send.at {
                    current.sends[current.sends.count - 1].entries.append(entry)
                } else {
                    current.sends.append(Send(registrationID: send.registrationID, at: send.at, entries: [entry]))
                }
                bytes += size
            }
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }
}
