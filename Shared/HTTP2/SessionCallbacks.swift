import CNGHTTP2

/// The one set of nghttp2 callbacks every session of a loop shares: each hands the event to the
/// `Connection` that is the session's user data. Loop-owned, freed with the loop.
final class SessionCallbacks {
    let pointer: OpaquePointer

    init() throws(HTTP2Error) {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { throw .setup("nghttp2_session_callbacks_new failed") }
        pointer = callbacks
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value, let user else { return 0 }
            SessionCallbacks.connection(user).header(frame, name: UnsafeBufferPointer(start: name, count: nameLength),
                                         value: UnsafeBufferPointer(start: value, count: valueLength))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let data, let user else { return 0 }
            SessionCallbacks.connection(user).data(streamID, UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            SessionCallbacks.connection(user).received(frame)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            SessionCallbacks.connection(user).sent(frame)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, _, user in
            guard let frame, let user else { return 0 }
            SessionCallbacks.connection(user).notSent(frame)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, code, user in
            guard let user else { return 0 }
            SessionCallbacks.connection(user).closed(streamID, code: code)
            return 0
        }
    }

    deinit { nghttp2_session_callbacks_del(pointer) }

    private static func connection(_ user: UnsafeMutableRawPointer) -> Connection {
        Unmanaged<Connection>.fromOpaque(user).takeUnretainedValue()
    }
}
