/// Sockets made and attached in one step, in the manner of czmq's `zsock_new_router(endpoint)`:
/// the constructor names the pattern and whether it binds or connects. A socket whose options must
/// be set before it attaches (CURVE, high-water marks, an identity) is made with `init` instead.
extension Socket {
    public static func router(_ context: Context, bind endpoint: String) throws(ZMQError) -> Socket {
        try Socket(context, .router).binding(endpoint)
    }

    public static func dealer(_ context: Context, connect endpoint: String) throws(ZMQError) -> Socket {
        try Socket(context, .dealer).connecting(endpoint)
    }

    public static func rep(_ context: Context, bind endpoint: String) throws(ZMQError) -> Socket {
        try Socket(context, .rep).binding(endpoint)
    }

    public static func req(_ context: Context, connect endpoint: String) throws(ZMQError) -> Socket {
        try Socket(context, .req).connecting(endpoint)
    }

    public static func pub(_ context: Context, connect endpoint: String) throws(ZMQError) -> Socket {
        try Socket(context, .pub).connecting(endpoint)
    }

    /// A SUB connected to `endpoint` and subscribed to topics starting with each of `topics` ("" = all).
    public static func sub(_ context: Context, connect endpoint: String, topics: [String] = [""]) throws(ZMQError) -> Socket {
        let socket = try Socket(context, .sub)
        for topic in topics { try socket.subscribe(topic) }
        return try socket.connecting(endpoint)
    }

    public static func push(_ context: Context, connect endpoint: String) throws(ZMQError) -> Socket {
        try Socket(context, .push).connecting(endpoint)
    }

    public static func pull(_ context: Context, bind endpoint: String) throws(ZMQError) -> Socket {
        try Socket(context, .pull).binding(endpoint)
    }

    public static func pair(_ context: Context, bind endpoint: String) throws(ZMQError) -> Socket {
        try Socket(context, .pair).binding(endpoint)
    }

    public static func pair(_ context: Context, connect endpoint: String) throws(ZMQError) -> Socket {
        try Socket(context, .pair).connecting(endpoint)
    }

    private func binding(_ endpoint: String) throws(ZMQError) -> Socket {
        try bind(endpoint)
        return self
    }

    private func connecting(_ endpoint: String) throws(ZMQError) -> Socket {
        try connect(endpoint)
        return self
    }
}
