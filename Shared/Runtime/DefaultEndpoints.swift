/// Where the gateway listens when no flag says otherwise, and so where every worker and client
/// dials by default: requests on 5555, events in on 5557 and out on 5558 (`/metrics` is 5556).
public enum DefaultEndpoints {
    public static let request = "tcp://127.0.0.1:5555"
    public static let eventsIn = "tcp://127.0.0.1:5557"
    public static let eventsOut = "tcp://127.0.0.1:5558"
}
